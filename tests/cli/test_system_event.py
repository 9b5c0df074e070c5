"""`claw system event TEXT`: a system event into the agent's main session, and the turn it runs there — in this
process when no gateway runs, through the running one (the `wake` method) when one does."""

from __future__ import annotations

import json

from tests.automations.test_gateway_process import GatewayProc
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import run_claw


def _main_transcript(claw_env: ClawEnv) -> list[dict[str, object]]:
    (path,) = (claw_env.home / "agents" / "main" / "sessions").glob("*.jsonl")  # the one session: main's
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_without_a_gateway_the_event_runs_a_turn_in_the_main_session(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("Noted: the backup finished."))
    done = run_claw(claw_env.env, "system", "event", "the nightly backup finished")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Noted: the backup finished."
    assert claw_env.server.last_request().messages[-1]["content"] == "[System event] the nightly backup finished"
    entries = [
        (e["role"], e["content"]) for e in _main_transcript(claw_env) if e.get("role") in ("system", "assistant")
    ]
    assert entries[-2:] == [("system", "the nightly backup finished"), ("assistant", "Noted: the backup finished.")]


def test_through_a_running_gateway_with_and_without_waiting(claw_env: ClawEnv) -> None:
    assert run_claw(claw_env.env, "init").returncode == 0
    gateway = GatewayProc(claw_env.env, server=True)
    try:
        claw_env.server.script(text("first reply"), text("second reply"))
        queued = run_claw(claw_env.env, "system", "event", "--no-wait", "deploy started")
        assert queued.returncode == 0 and queued.stdout.startswith("Queued in agent:main:main (run "), queued.stderr
        claw_env.server.wait_for_requests(1, timeout=30, path="/v1/chat/completions")
        done = run_claw(claw_env.env, "system", "event", "deploy finished", "--json")
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["status"] == "ok" and result["text"] == "second reply"
        contents = [m["content"] for m in claw_env.server.chat_requests[-1].messages]
        assert "[System event] deploy started" in contents and contents[-1] == "[System event] deploy finished"
    finally:
        gateway.stop()


def test_bad_input_is_one_line(claw_env: ClawEnv) -> None:
    for args, expected in ((("  ",), "empty"), (("x", "--agent", "nobody"), "nobody")):
        done = run_claw(claw_env.env, "system", "event", *args)
        assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not claw_env.server.chat_requests
