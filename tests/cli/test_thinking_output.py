"""`claw agent` never mixes the model's reasoning into the reply: stdout is the reply, stderr one
`(thinking…)` line per reasoning call; `--json` passes the thinking events through; `sessions show` and
`sessions export` mark the stored reasoning apart from the reply."""

from __future__ import annotations

import json

from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, thinking
from tests.support.processes import run_claw

REASONING = "Weighing options. HIDDEN-STEP: pick the short answer."


def test_the_reply_on_stdout_holds_none_of_the_reasoning(claw_env: ClawEnv) -> None:
    claw_env.server.script(
        thinking("Reading first.", calls=[("read", {"path": "SOUL.md"})]), thinking(REASONING, "Short answer.")
    )
    done = run_claw(claw_env.env, "agent", "-m", "answer me", timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Short answer."
    assert "HIDDEN-STEP" not in done.stdout + done.stderr and "Reading first." not in done.stderr
    assert done.stderr.count("(thinking…)") == 2  # one line per model call that reasoned
    assert "\x1b[" not in done.stderr  # not a terminal: no colour codes


def test_json_passes_the_thinking_stream_through(claw_env: ClawEnv) -> None:
    claw_env.server.script(thinking(REASONING, "Short answer."))
    done = run_claw(claw_env.env, "agent", "-m", "answer me", "--json", timeout=30)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert "".join(e["data"]["delta"] for e in events if e["stream"] == "thinking") == REASONING
    assert "".join(e["data"]["delta"] for e in events if e["stream"] == "assistant") == "Short answer."
    assert events[-1]["data"]["text"] == "Short answer."


def test_sessions_show_and_export_mark_the_reasoning_apart(claw_env: ClawEnv) -> None:
    claw_env.server.script(thinking(REASONING, "Short answer."), text("Plain again."))
    assert run_claw(claw_env.env, "agent", "-m", "answer me", timeout=30).returncode == 0
    assert run_claw(claw_env.env, "agent", "-m", "once more", timeout=30).returncode == 0

    shown = run_claw(claw_env.env, "sessions", "show", "agent:main:main", timeout=30)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    marked = next(i for i, line in enumerate(lines) if "thinking (not part of the reply)" in line)
    assert lines[marked + 1] == REASONING
    assert shown.stdout.count("thinking (not part of the reply)") == 1  # the plain reply has none
    assert "Short answer." in shown.stdout

    raw = json.loads(run_claw(claw_env.env, "sessions", "show", "agent:main:main", "--json", timeout=30).stdout)
    replies = [m for m in raw["messages"] if m.get("role") == "assistant"]
    pairs = [(m["content"], m.get("thinking")) for m in replies]
    assert pairs == [("Short answer.", REASONING), ("Plain again.", None)]

    export = run_claw(claw_env.env, "sessions", "export", "agent:main:main", timeout=30)
    assert f"<details><summary>Thinking</summary>\n\n{REASONING}\n\n</details>" in export.stdout
    page = run_claw(claw_env.env, "sessions", "export", "agent:main:main", "--format", "html", timeout=30).stdout
    assert f"<summary>Thinking (not part of the reply)</summary><pre>{REASONING}</pre>" in page
