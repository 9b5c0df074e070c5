"""The real `claw` process: `claw agent -m`, `claw sessions …`, against the scripted model server."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow, text, tool_call
from tests.support.processes import run_claw
from tests.support.waiting import read_until


def claw(env: dict[str, str], *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return run_claw(env, *args, timeout=timeout)


def test_agent_streams_the_reply_and_shows_tools(claw_env: ClawEnv) -> None:
    assert claw(claw_env.env, "init").returncode == 0
    claw_env.server.script(tool_call("read", {"path": "SOUL.md"}), text("Your soul file describes me."))
    done = claw(claw_env.env, "agent", "-m", "read SOUL.md and summarise it")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Your soul file describes me."
    assert "→ read path='SOUL.md'" in done.stderr and "✓ read" in done.stderr
    soul = (claw_env.home / "workspace" / "SOUL.md").read_text()
    assert soul[:200] in claw_env.server.chat_requests[1].body["messages"][-1]["content"]


def test_agent_json_prints_run_events(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("one line"))
    done = claw(claw_env.env, "agent", "-m", "and now in one line", "--json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    # The protocol's agent events (OpenClaw's shape): the transcript's id from the run's start on.
    assert {tuple(e) for e in events[:1]} == {("runId", "seq", "stream", "ts", "sessionKey", "data", "agentId")}
    assert {tuple(e) for e in events[1:]} == {("runId", "seq", "stream", "ts", "sessionKey", "data", "agentId",
                                               "sessionId")}  # fmt: skip
    assert [e["data"]["phase"] for e in events if e["stream"] == "lifecycle"] == ["accepted", "start", "end"]
    assert [e["data"]["text"] for e in events if e["stream"] == "assistant"][-1] == "one line"  # cumulative
    assert events[-1]["data"]["text"] == "one line"
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))


def test_sessions_ls_show_reset(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("first answer"))
    assert claw(claw_env.env, "agent", "-m", "first question").returncode == 0
    ls = claw(claw_env.env, "sessions", "ls", "--json")
    rows = json.loads(ls.stdout)
    assert rows[0]["key"] == "agent:main:main" and rows[0]["messages"] == 2
    table = claw(claw_env.env, "sessions", "ls")
    assert "agent:main:main" in table.stdout and rows[0]["sessionId"][:8] in table.stdout

    show = claw(claw_env.env, "sessions", "show", "agent:main:main")
    assert "first question" in show.stdout and "first answer" in show.stdout

    reset = claw(claw_env.env, "sessions", "reset", "agent:main:main")
    assert reset.returncode == 0 and "new session id" in reset.stdout
    archived = list((claw_env.home / "agents" / "main" / "sessions" / "archive").glob("*.jsonl"))
    assert len(archived) == 1 and "first question" in archived[0].read_text()
    rows_after = json.loads(claw(claw_env.env, "sessions", "ls", "--json").stdout)
    assert rows_after[0]["sessionId"] != rows[0]["sessionId"] and rows_after[0]["messages"] == 0

    missing = claw(claw_env.env, "sessions", "show", "agent:main:nope")
    assert (
        missing.returncode == 1
        and missing.stderr.strip() == "claw: no session agent:main:nope (see `claw sessions ls`)"
    )


def test_no_model_configured_says_how_and_exits_2(claw_env: ClawEnv) -> None:
    env = {k: v for k, v in claw_env.env.items() if k != "CLAW_MODEL"}
    done = claw(env, "agent", "-m", "hello")
    assert done.returncode == 2
    assert (
        done.stderr.count("\n") == 1 and "no model configured" in done.stderr and "CLAW_MODEL" in done.stderr
    )
    assert claw_env.server.requests == []


def test_bad_config_is_one_line_and_exit_2(claw_env: ClawEnv) -> None:
    (claw_env.home / "config.toml").write_text('[agents.defaults]\nmaxConcurrent = "lots"\n')
    done = claw(claw_env.env, "agent", "-m", "hello")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert "agents.defaults.maxConcurrent" in done.stderr and "config.toml" in done.stderr


def test_ctrl_c_aborts_the_turn(claw_env: ClawEnv) -> None:
    reply = "word " * 200
    claw_env.server.script(slow(reply, delay_per_chunk=0.05))
    proc = subprocess.Popen(
        [sys.executable, "-m", "claw", "agent", "-m", "long story"],
        env=claw_env.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert proc.stdout is not None
    seen = read_until(proc.stdout, lambda out: out.startswith("word"), what="the first streamed words")
    os.kill(proc.pid, signal.SIGINT)
    rest, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    out = seen + rest
    assert "(aborted)" in err and out.startswith("word") and out.strip() != reply.strip()  # cut short
    history = json.loads(claw(claw_env.env, "sessions", "show", "--json").stdout)["messages"]
    assert history[-1]["aborted"] is True and reply.startswith(history[-1]["content"])
