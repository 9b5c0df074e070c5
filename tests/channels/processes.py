"""`claw gateway run` as a real subprocess, for the kill -9 tests and the CLI through a running gateway."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.support.processes import REPO, run_claw, wait_until

__all__ = ["REPO", "GatewayProc", "claw", "rows", "wait_until"]


class GatewayProc:
    """Started and waited for (gateway.json names its pid); `fault` sets CLAW_FAULT for this process only."""

    def __init__(self, env: dict[str, str], *, fault: str | None = None) -> None:
        self.home = Path(env["CLAW_HOME"])
        extra = {"CLAW_FAULT": fault} if fault else {}
        self.log = open(self.home / f"gateway-{time.monotonic_ns()}.log", "w+")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "claw", "gateway", "run", "--port", "0"],
            env={**{k: v for k, v in env.items() if k != "CLAW_FAULT"}, **extra, "PYTHONPATH": str(REPO)},
            cwd=REPO, stdout=subprocess.DEVNULL, stderr=self.log,
        )  # fmt: skip
        runtime = self.home / "gateway.json"
        deadline = time.monotonic() + 90
        while not (runtime.exists() and _pid(runtime) == self.proc.pid):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                output = self.output()
                self.stop()
                raise AssertionError(f"the gateway did not start:\n{output}")
            time.sleep(0.05)
        self.port = int(json.loads(runtime.read_text())["port"])

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read()

    def wait_killed(self, timeout: float = 30.0) -> None:
        """Wait for the process to die by its own CLAW_FAULT SIGKILL (and reap it)."""
        code = self.proc.wait(timeout)
        assert code == -signal.SIGKILL, f"exit {code}:\n{self.output()}"
        assert "CLAW_FAULT: killing this process" in self.output()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)
        self.log.close()


def _pid(path: Path) -> int | None:
    try:
        return int(json.loads(path.read_text())["pid"])
    except (OSError, ValueError, KeyError):
        return None


def claw(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_claw(env, *args, timeout=120)


def rows(home: Path, table: str) -> list[dict[str, Any]]:
    with sqlite3.connect(home / "gateway.db") as conn:
        conn.row_factory = sqlite3.Row
        return [dict(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY rowid")]
