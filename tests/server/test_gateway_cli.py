"""The real processes: `claw gateway run|status|token`, and `claw agent -m` through a running gateway."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.fixtures import API_KEY, ClawEnv
from tests.support.model_server import hang, slow, text
from tests.support.processes import run_claw
from tests.support.session_index import read_index
from tests.support.waiting import read_until

REPO = Path(__file__).resolve().parents[2]
GATEWAY_TOKEN = "env-gateway-token-7d41c0aa"


def claw(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return run_claw(env, *args, timeout=timeout)


def claw_in_background(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """`claw ARGS` started and left running (pipes for stdout and stderr, no stdin)."""
    return subprocess.Popen(
        [sys.executable, "-m", "claw", *args],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


@dataclass
class GatewayProc:
    proc: subprocess.Popen[str]
    home: Path
    stderr_path: Path

    @property
    def info(self) -> dict[str, object]:
        return json.loads((self.home / "gateway.json").read_text())

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text()

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 30) -> int:
        self.proc.send_signal(sig)
        return self.proc.wait(timeout)


def start_gateway(env: dict[str, str], home: Path, *args: str) -> GatewayProc:
    stderr_path = home.parent / f"gateway-{time.monotonic_ns()}.err"
    with stderr_path.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "claw", "gateway", "run", "--port", "0", *args],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=err,
            stdin=subprocess.DEVNULL,
            text=True,
        )
    deadline = time.monotonic() + 90
    while not (home / "gateway.json").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            proc.wait(30)
            raise AssertionError(f"gateway did not start:\n{stderr_path.read_text()}")
        time.sleep(0.05)
    return GatewayProc(proc, home, stderr_path)


@pytest.fixture
def gateway(claw_env: ClawEnv) -> Iterator[GatewayProc]:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    assert claw(env, "init").returncode == 0
    running = start_gateway(env, claw_env.home)
    yield running
    if running.proc.poll() is None:
        running.proc.kill()
        running.proc.wait(10)


def test_non_loopback_bind_without_token_refuses_to_start(claw_env: ClawEnv) -> None:
    # The test holds the port (bound, not listening) throughout: no other process can take it meanwhile, and
    # a gateway that bound before checking the token would fail on it instead of refusing.
    with socket.socket() as held:
        held.bind(("0.0.0.0", 0))
        port = int(held.getsockname()[1])
        for env in (claw_env.env, {**claw_env.env, "CLAW_GATEWAY_TOKEN": "   "}):
            done = claw(env, "gateway", "run", "--bind", "0.0.0.0", "--port", str(port), timeout=30)
            assert done.returncode == 2, done
            lines = done.stderr.strip().splitlines()
            assert len(lines) == 1, lines
            assert lines[0].startswith("claw: refusing to bind the gateway to 0.0.0.0 without a token"), lines
            with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), timeout=2):
                pass
    assert not (claw_env.home / "gateway.json").exists()


def test_status_token_and_agent_through_the_running_gateway(claw_env: ClawEnv, gateway: GatewayProc) -> None:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    info = gateway.info
    assert info["pid"] == gateway.proc.pid and str(info["url"]).startswith("ws://127.0.0.1:")
    assert (claw_env.home / "gateway.json").stat().st_mode & 0o777 == 0o600

    status = claw(env, "gateway", "status", "--json")
    report = json.loads(status.stdout)
    assert status.returncode == 0 and report["running"] is True and report["url"] == info["url"]
    assert report["agents"] == ["main"] and report["activeRuns"] == 0 and report["uptimeSeconds"] >= 0
    human = claw(env, "gateway", "status")
    assert f"Gateway running at {info['url']}" in human.stdout and "sessions: 0" in human.stdout
    assert claw(env, "gateway", "token").stdout.strip() == GATEWAY_TOKEN
    file_token = (claw_env.home / "gateway.token").read_text().strip()
    no_env = {k: v for k, v in env.items() if k != "CLAW_GATEWAY_TOKEN"}
    assert claw(no_env, "gateway", "token").stdout.strip() == file_token

    claw_env.server.script(text("Answered by the gateway."))
    # -X importtime lists every module the client imported: neither openai nor textual may be there.
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "claw", "agent", "-m", "through the gateway"],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "Answered by the gateway."
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert "websockets" in imported and "claw.client.remote" in imported
    assert not {m for m in imported if m.split(".")[0] in ("openai", "textual", "aiohttp")}
    assert not {"claw.config", "claw.gateway.gateway", "claw.agent.runner"} & imported  # no in-process gateway

    # The turn ran in the gateway, and its transcript is in the same store.
    assert "connection" in gateway.stderr and "cli 0.1.0 (cli)" in gateway.stderr
    index = read_index(claw_env.home / "agents" / "main" / "sessions")
    entry = next(iter(index.values())) if "sessions" not in index else next(iter(index["sessions"].values()))
    transcript = (claw_env.home / "agents" / "main" / "sessions" / f"{entry['sessionId']}.jsonl").read_text()
    assert "through the gateway" in transcript and "Answered by the gateway." in transcript

    claw_env.server.script(text("json too"))
    as_json = claw(env, "agent", "-m", "again", "--json", "--url", str(info["url"]))
    events = [json.loads(line) for line in as_json.stdout.splitlines()]
    assert [e["data"]["phase"] for e in events if e["stream"] == "lifecycle"] == ["accepted", "start", "end"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert json.loads(claw(env, "gateway", "status", "--json").stdout)["sessions"]["count"] == 1

    # A second gateway on the same state refuses to start.
    second = claw(env, "gateway", "run", "--port", "0", timeout=30)
    assert second.returncode == 2
    assert f"claw gateway run (pid {gateway.proc.pid}) already runs the gateway's background services" in second.stderr

    assert gateway.stop() == 0
    assert not (claw_env.home / "gateway.json").exists()
    assert claw(env, "gateway", "status").returncode == 1


def test_no_path_of_agent_m_through_a_gateway_imports_openai(claw_env: ClawEnv) -> None:
    """Issue 41: when a gateway answers, the CLI never loads the model client (openai is ~75 % of a cold turn).
    The token from the gateway's file (no CLAW_GATEWAY_TOKEN), a new session, --json, --url, a slash command."""
    env = {k: v for k, v in claw_env.env.items() if k != "CLAW_GATEWAY_TOKEN"}
    assert claw(env, "init").returncode == 0
    gateway = start_gateway(env, claw_env.home)
    try:
        _agent_without_openai(claw_env, env, str(gateway.info["url"]))
    finally:
        gateway.stop()


def _agent_without_openai(claw_env: ClawEnv, env: dict[str, str], url: str) -> None:
    for args in (["-m", "hi"], ["-s", "fresh", "-m", "hi"], ["-m", "hi", "--json"], ["-m", "hi", "--url", url],
                 ["-m", "/status"]):  # fmt: skip
        claw_env.server.script(text("through the gateway"))
        done = subprocess.run([sys.executable, "-X", "importtime", "-m", "claw", "agent", *args], env=env, cwd=REPO,
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)  # fmt: skip
        assert done.returncode == 0, (args, done.stderr[-2000:])
        assert "through the gateway" in done.stdout or args == ["-m", "/status"], (args, done.stdout)
        imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
        assert "claw.client.remote" in imported, args  # it went through the gateway
        assert not {m for m in imported if m.split(".")[0] == "openai"}, args
        assert not {"claw.gateway.gateway", "claw.agent.runner"} & imported, args


def test_sigterm_lets_a_running_turn_finish_and_flushes(claw_env: ClawEnv, gateway: GatewayProc) -> None:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    claw_env.server.script(slow("finishing my sentence before the gateway stops", delay_per_chunk=0.15))
    client = claw_in_background(env, "agent", "-m", "talk slowly")
    claw_env.server.wait_for_requests(1, timeout=30, path="/v1/chat/completions")
    assert gateway.stop(signal.SIGTERM) == 0
    out, err = client.communicate(timeout=30)
    assert client.returncode == 0, err
    assert out.strip() == "finishing my sentence before the gateway stops"
    assert not (claw_env.home / "gateway.json").exists()
    log = gateway.stderr
    assert "waiting up to 10 s for 1 run(s)" in log and "gateway stopped" in log
    sessions = claw_env.home / "agents" / "main" / "sessions"
    transcript = next(sessions.glob("*.jsonl")).read_text()
    assert "finishing my sentence before the gateway stops" in transcript


def test_sigterm_aborts_what_does_not_finish_in_the_grace(claw_env: ClawEnv) -> None:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    assert claw(env, "init").returncode == 0
    assert claw(env, "config", "set", "gateway.shutdownGraceSeconds", "0.5").returncode == 0
    running = start_gateway(env, claw_env.home)
    claw_env.server.script(hang("I will never"))
    client = claw_in_background(env, "agent", "-m", "hang forever", "--json")
    assert client.stdout is not None
    # The run is under way in the gateway once its first streamed delta has reached the client.
    seen = read_until(client.stdout, lambda out: '"stream": "assistant"' in out, what="a streamed delta")
    assert running.stop(signal.SIGTERM) == 0
    rest, _err = client.communicate(timeout=30)
    phases = [json.loads(line)["data"].get("phase") for line in (seen + rest).splitlines()]
    assert phases[-1] == "aborted" and client.returncode == 130
    log = running.stderr
    assert "waiting up to 0.5 s for 1 run(s)" in log and "aborting 1 run(s)" in log  # the configured grace, then
    transcript = next((claw_env.home / "agents" / "main" / "sessions").glob("*.jsonl")).read_text()
    assert "hang forever" in transcript


def test_no_secret_in_logs(claw_env: ClawEnv, gateway: GatewayProc) -> None:
    import asyncio

    from claw.client.remote import RemoteClient
    from claw.errors import GatewayUnavailable

    url = str(gateway.info["url"])

    async def poke() -> None:
        with pytest.raises(GatewayUnavailable):
            await RemoteClient.connect(url, "a-wrong-token-guess-123")
        client = await RemoteClient.connect(url, GATEWAY_TOKEN)
        claw_env.server.script(text(f"the key is {API_KEY}-not-really"))
        handle = await client.run("hello")
        assert handle.run_id is not None
        [e async for e in client.events(handle.run_id)]
        await client.close()

    asyncio.run(poke())
    assert gateway.stop() == 0
    logged = gateway.stderr + (claw_env.home / "logs" / "gateway.log").read_text()
    assert "refused GET / from 127.0.0.1: bad bearer token" in logged and "token from env" in logged
    for secret in (GATEWAY_TOKEN, "a-wrong-token-guess-123", os.environ["OPENAI_API_KEY"]):
        assert secret not in logged
    assert (claw_env.home / "logs" / "gateway.log").stat().st_mode & 0o777 == 0o600


def test_stale_runtime_file_is_ignored(claw_env: ClawEnv) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    assert claw(claw_env.env, "init").returncode == 0
    # Bound but never listening, for the whole test: connections are refused and no one else can take it.
    nothing_listens = socket.socket()
    nothing_listens.bind(("127.0.0.1", 0))
    stale = {
        "pid": dead.pid,
        "url": f"ws://127.0.0.1:{nothing_listens.getsockname()[1]}/",
        "bind": "127.0.0.1",
        "port": 1,
        "startedAt": time.time(),
        "version": "0.1.0",
    }
    (claw_env.home / "gateway.json").write_text(json.dumps(stale))
    status = claw(claw_env.env, "gateway", "status")
    assert status.returncode == 1 and "No gateway is running" in status.stdout
    claw_env.server.script(text("in-process after all"))
    done = claw(claw_env.env, "agent", "-m", "hi")
    assert done.returncode == 0 and done.stdout.strip() == "in-process after all"
    # A live pid whose port has nothing listening (pid reuse): also in-process.
    stale["pid"] = os.getpid()
    (claw_env.home / "gateway.json").write_text(json.dumps(stale))
    claw_env.server.script(text("still fine"))
    assert claw(claw_env.env, "agent", "-m", "hi").stdout.strip() == "still fine"
    explicit = claw(claw_env.env, "agent", "-m", "hi", "--url", str(stale["url"]))
    nothing_listens.close()
    assert explicit.returncode == 1 and "cannot connect to the gateway" in explicit.stderr


def test_ctrl_c_in_claw_agent_aborts_the_run_in_the_gateway(claw_env: ClawEnv, gateway: GatewayProc) -> None:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    claw_env.server.script(slow("word " * 200, delay_per_chunk=0.1))
    client = claw_in_background(env, "agent", "-m", "talk a lot")
    assert client.stdout is not None
    seen = read_until(client.stdout, lambda out: out.startswith("word"), what="the first streamed words")
    client.send_signal(signal.SIGINT)
    rest, err = client.communicate(timeout=30)
    assert client.returncode == 130, err
    out = seen + rest
    assert out.startswith("word") and out.strip() != ("word " * 200).strip() and "(aborted)" in err
    status = json.loads(claw(env, "gateway", "status", "--json").stdout)
    assert status["activeRuns"] == 0  # the run stopped in the gateway, not just in the client
    transcript = next((claw_env.home / "agents" / "main" / "sessions").glob("*.jsonl")).read_text()
    assert '"aborted":true' in transcript.replace(" ", "")


def test_session_commands_go_through_the_running_gateway(claw_env: ClawEnv, gateway: GatewayProc) -> None:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    claw_env.server.script(text("first answer"))
    assert claw(env, "agent", "-m", "hello there").returncode == 0
    for args in (["sessions", "ls", "--json"], ["sessions", "reset", "main"]):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "claw", *args],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
        assert "claw.client.remote" in imported and "claw.gateway.gateway" not in imported, args
    rows = json.loads(claw(env, "sessions", "ls", "--json").stdout)
    assert rows[0]["messages"] == 0  # the gateway's own store saw the reset


def test_no_model_through_the_gateway_is_exit_2(claw_env: ClawEnv) -> None:
    env = {k: v for k, v in claw_env.env.items() if k != "CLAW_MODEL"}
    env["CLAW_GATEWAY_TOKEN"] = GATEWAY_TOKEN
    running = start_gateway(env, claw_env.home)
    try:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "claw", "agent", "-m", "hello"],
            env=env, cwd=REPO, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr[-2000:]
        assert "claw: error: no model configured" in done.stderr
        imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
        assert "claw.client.remote" in imported and "claw.gateway.gateway" not in imported  # through it
    finally:
        running.stop()
