"""Issue 15, point 4: a failed turn leaves a mark — in the transcript, in `claw sessions show`, and on the
terminal, where the error is a line of its own, never glued to the reply that had streamed."""

from __future__ import annotations

import socket

from claw.store.transcript import Transcript
from tests.gateway.conftest import write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import hang
from tests.support.processes import run_claw
from tests.support.session_index import read_index


def _entries(env: ClawEnv, key: str = "agent:main:main") -> list[dict]:
    sessions = env.home / "agents" / "main" / "sessions"
    index = read_index(sessions)
    return Transcript(sessions / f"{index[key]['sessionId']}.jsonl").read()


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # nothing listens once it is closed


def test_connection_errors_are_recorded_and_shown(claw_env: ClawEnv) -> None:
    env = {**claw_env.env, "OPENAI_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1"}
    for _ in range(2):
        done = run_claw(env, "agent", "-m", "hi")
        assert done.returncode == 1, done
        errors = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(errors) == 1 and errors[0].startswith("claw: error: model error:"), done.stderr
        assert done.stdout == ""
    closing = [e for e in _entries(claw_env) if e.get("interrupted")]
    assert [e["reason"] for e in closing] == ["error", "error"]
    assert all("model error" in e["error"] for e in closing)
    shown = run_claw(env, "sessions", "show", "main")
    assert shown.returncode == 0, shown
    assert " ".join(shown.stdout.split()).count("interrupted: the run failed (model error:") == 2, shown.stdout


def test_error_after_partial_reply_is_on_its_own_line_and_recorded(claw_env: ClawEnv) -> None:
    # Long enough for the partial reply to arrive first on a loaded machine.
    write_config(claw_env.home, "[agents.defaults]\ntimeout_seconds = 10\n")
    claw_env.server.script(hang("Half an answer"))  # streams its text, then stalls past the run's timeout
    done = run_claw(claw_env.env, "agent", "-m", "hi")
    assert done.returncode == 1, done
    assert done.stdout == "Half an answer\n"  # the reply's line is ended before the error is printed
    assert done.stderr.strip().splitlines() == ["claw: error: run timed out after 10 s"]
    last = _entries(claw_env)[-1]
    assert last["role"] == "assistant" and last.get("interrupted") and last["reason"] == "error", last
    assert last["content"] == "Half an answer" and last["error"] == "run timed out after 10 s"
    assert not last.get("aborted")  # a timeout is a failure, not the user stopping the run
    shown = run_claw(claw_env.env, "sessions", "show", "main")
    flat = " ".join(shown.stdout.split())
    assert "interrupted: the run failed (run timed out after 10 s)" in flat and "Half an answer" in flat, shown.stdout
    assert "(aborted)" not in flat
