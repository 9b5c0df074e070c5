"""Real processes: a gateway killed with SIGKILL mid-run and restarted; the CLI talking to a running gateway."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from claw.automations.policy import INTERRUPTED
from tests.automations.conftest import CONFIG
from tests.support.fixtures import ClawEnv
from tests.support.model_server import error, hang, text
from tests.support.processes import REPO, run_claw, wait_until


class GatewayProc:
    """A gateway subprocess, started and waited for: `claw gateway run --port 0` (with `server`), else
    `gateway_harness` (the scheduler and no `gateway.json`, so CLI commands write gateway.db themselves)."""

    def __init__(self, env: dict[str, str], *, server: bool) -> None:
        home = Path(env["CLAW_HOME"])
        if server:
            args = [sys.executable, "-m", "claw", "gateway", "run", "--port", "0"]
        else:
            args = [sys.executable, "-m", "tests.automations.gateway_harness"]
        self.log = open(home / f"gateway-{time.monotonic_ns()}.log", "w+")  # noqa: SIM115
        self.proc = subprocess.Popen(
            args, env={**env, "PYTHONPATH": str(REPO)}, cwd=REPO, stdout=subprocess.PIPE, stderr=self.log, text=True
        )
        self._runtime = home / "gateway.json" if server else None
        deadline = time.monotonic() + 90
        while not self._ready():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise AssertionError(f"the gateway did not start:\n{Path(self.log.name).read_text()}")
            time.sleep(0.05)

    def _ready(self) -> bool:
        if self._runtime is None:  # the harness says so on stdout
            assert self.proc.stdout is not None
            return self.proc.stdout.readline().startswith("READY")
        return self._runtime.exists() and json.loads(self._runtime.read_text())["pid"] == self.proc.pid

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.log.close()


@pytest.fixture
def gateways(claw_env: ClawEnv) -> Iterator[list[GatewayProc]]:
    (claw_env.home / "config.toml").write_text(CONFIG, encoding="utf-8")
    started: list[GatewayProc] = []
    yield started
    for proc in started:
        proc.stop()


def start(claw_env: ClawEnv, gateways: list[GatewayProc], *, server: bool) -> GatewayProc:
    proc = GatewayProc(claw_env.env, server=server)
    gateways.append(proc)
    return proc


def claw(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_claw(env, *args, timeout=120)


def ledger(home: Path, job_id: str) -> list[dict[str, object]]:
    with sqlite3.connect(home / "gateway.db") as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute("SELECT * FROM automation_runs WHERE job_id = ? ORDER BY started_at", (job_id,))
        return [dict(row) for row in rows]


def runs_of(home: Path, job_id: str) -> list[dict[str, object]]:
    """The job's ledger rows that ran (or run): a slot that came while a run was going is only noted as
    `skipped`, and how many of those there are depends on how fast the machine is."""
    return [r for r in ledger(home, job_id) if r["status"] != "skipped"]


def test_kill_9_mid_run_then_restart_marks_the_orphan_failed_and_never_runs_the_slot_twice(
    claw_env: ClawEnv, gateways: list[GatewayProc]
) -> None:
    claw_env.server.script(hang())  # the first run never finishes by itself; any later turn would answer "ok"
    first = start(claw_env, gateways, server=True)
    added = claw(claw_env.env, "automations", "add", "--every", "2s", "-m", "long task", "--json")
    assert added.returncode == 0, added.stderr
    job = json.loads(added.stdout)
    claw_env.server.wait_for_requests(1, timeout=30, path="/v1/chat/completions")
    (running,) = wait_until(lambda: runs_of(claw_env.home, job["id"]), what="the ledger row")
    assert running["status"] == "running" and running["owner"].startswith(f"{first.proc.pid}:")

    first.kill9()
    start(claw_env, gateways, server=True)
    rows = wait_until(
        lambda: [r for r in runs_of(claw_env.home, job["id"]) if r["status"] != "running"], what="the orphan marked"
    )
    assert [(r["id"], r["status"], r["error"]) for r in rows] == [(running["id"], "error", INTERRUPTED)]
    time.sleep(3)  # more than one interval: the interrupted slot must not come back (and backoff holds the next)
    assert len(claw_env.server.chat_requests) == 1
    assert [r["slot"] for r in runs_of(claw_env.home, job["id"])] == [running["slot"]]
    shown = claw(claw_env.env, "automations", "runs", job["id"], "--json")
    ran = [r for r in json.loads(shown.stdout) if r["status"] != "skipped"]  # as runs_of: skips depend on speed
    assert ran[0]["error"] == INTERRUPTED
    (state,) = json.loads(claw(claw_env.env, "automations", "ls", "--json").stdout)
    assert state["lastStatus"] == "error" and state["consecutiveErrors"] == 1 and not state["running"]


def test_a_job_added_by_the_cli_fires_in_a_running_gateway_without_a_restart(
    claw_env: ClawEnv, gateways: list[GatewayProc]
) -> None:
    start(claw_env, gateways, server=False)  # no gateway.json: the CLI writes gateway.db itself
    claw_env.server.script(text("hello back"))
    added = claw(claw_env.env, "automations", "add", "--at", "2s", "-m", "hello from the cli", "--json")
    assert added.returncode == 0, added.stderr
    job = json.loads(added.stdout)
    (request,) = claw_env.server.wait_for_requests(1, timeout=30, path="/v1/chat/completions")
    assert request.messages[-1]["content"] == "hello from the cli"
    rows = wait_until(lambda: [r for r in ledger(claw_env.home, job["id"]) if r["status"] == "ok"], what="the run")
    assert rows[0]["output"] == "hello back"
    wait_until(lambda: json.loads(claw(claw_env.env, "automations", "ls", "--json").stdout) == [], what="removal")


def test_run_through_the_running_gateway(claw_env: ClawEnv, gateways: list[GatewayProc]) -> None:
    proc = start(claw_env, gateways, server=True)
    added = claw(claw_env.env, "automations", "add", "0 9 * * *", "-m", "brief now", "--name", "brief", "--json")
    job = json.loads(added.stdout)
    claw_env.server.script(text("Here is the brief."))
    done = claw(claw_env.env, "automations", "run", "brief")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Here is the brief." and done.stderr.startswith("ok: run ")
    (row,) = ledger(claw_env.home, job["id"])
    assert row["trigger"] == "manual" and row["owner"].startswith(f"{proc.proc.pid}:")  # ran inside the gateway


def test_run_without_a_gateway_runs_in_this_process(claw_env: ClawEnv, gateways: list[GatewayProc]) -> None:
    job = json.loads(claw(claw_env.env, "automations", "add", "--every", "1h", "-m", "now please", "--json").stdout)
    claw_env.server.script(text("Done by hand."), error(400, "no such thing"))
    done = claw(claw_env.env, "automations", "run", job["id"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Done by hand."
    failed = claw(claw_env.env, "automations", "run", job["id"])
    assert failed.returncode == 1 and failed.stderr.startswith("error: run ") and "no such thing" in failed.stderr
    table = claw(claw_env.env, "automations", "runs", job["id"], "--wide").stdout  # the output whole
    lines = [line for line in table.splitlines() if "manual" in line]
    assert len(lines) == 2 and "error" in lines[0] and "ok" in lines[1] and "Done by hand." in lines[1]
    (state,) = json.loads(claw(claw_env.env, "automations", "ls", "--json").stdout)
    assert state["lastStatus"] == "error" and state["nextRunAt"] == job["nextRunAt"]  # manual runs leave the schedule
