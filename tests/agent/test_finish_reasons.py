"""How a reply ends, in whole runs: cut by the output limit (`finish_reason: length`) it is reported as such
and never looped on; an empty reply after tool results is an error, not a blank answer."""

from __future__ import annotations

import json

from claw.agent.runner import CUT_BEFORE_REPLY, EMPTY_AFTER_TOOLS
from claw.vocab.run_event import TRUNCATED_NOTE
from tests.agent.conftest import run, said, terminal, tool_results, transcript
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.support.processes import run_claw
from tests.support.stream_shapes import call_fragments, shaped, split_text


async def test_a_reply_cut_by_the_output_limit_ends_the_run_as_truncated(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    claw_env.server.script(text("The first half of a long ans", finish_reason="length"))
    events = await run(client)

    end = terminal(events)
    assert end["phase"] == "end" and end["truncated"] == "length"
    assert end["text"] == "The first half of a long ans"
    assert len(claw_env.server.chat_requests) == 1  # no silent retry, no loop
    assert transcript(claw_env.home)[-1]["content"] == "The first half of a long ans"


async def test_tool_calls_cut_by_the_output_limit_are_not_run(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    cut = call_fragments("read", '{"path": "no', pieces=2)
    hermes = split_text('Reading. <tool_call>{"name": "read", "arguments": {"pa', 3)
    claw_env.server.script(shaped(*cut, finish_reason="length"), shaped(*hermes, finish_reason="length"))

    events = await run(client)
    assert terminal(events) == {**terminal(events), "phase": "error", "message": CUT_BEFORE_REPLY}
    assert tool_results(events) == []

    events = await run(client, "again")
    assert terminal(events)["truncated"] == "length" and said(events) == "Reading. "
    assert tool_results(events) == [] and len(claw_env.server.chat_requests) == 2


async def test_an_empty_reply_after_tools_is_an_error_not_a_blank_answer(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    claw_env.server.script(tool_call("read", {"path": "note.md"}), text(""))
    events = await run(client)

    end = terminal(events)
    assert end["phase"] == "error" and end["message"] == EMPTY_AFTER_TOOLS and end["code"] == "empty_reply"
    assert [r["isError"] for r in tool_results(events)] == [False]
    last = transcript(claw_env.home)[-1]  # the turn is closed as failed, with why: no blank reply
    assert last["role"] == "assistant" and last["interrupted"] is True and EMPTY_AFTER_TOOLS in json.dumps(last)

    claw_env.server.script(text("Now I answer."))  # the session goes on: the next prompt is well formed
    events = await run(client, "and?")
    assert terminal(events)["text"] == "Now I answer."


async def test_a_reply_of_only_thinking_after_tools_is_empty_too(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    claw_env.server.script(tool_call("read", {"path": "note.md"}), shaped(*split_text("<think>hmm</think>", 4)))
    events = await run(client)

    assert terminal(events)["message"] == EMPTY_AFTER_TOOLS


def test_the_cli_says_the_reply_was_cut_and_how_to_go_on(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("Half a reply", finish_reason="length"), text("Half a reply", finish_reason="length"))
    done = run_claw(claw_env.env, "agent", "-m", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Half a reply"
    assert TRUNCATED_NOTE in done.stderr and '"continue"' in TRUNCATED_NOTE

    done = run_claw(claw_env.env, "agent", "-m", "hi", "--json")
    end = [json.loads(line) for line in done.stdout.splitlines()][-1]
    assert end["data"]["phase"] == "end" and end["data"]["truncated"] == "length"


def test_cli_json_deltas_never_carry_tool_markup(claw_env: ClawEnv) -> None:
    (claw_env.home / "workspace").mkdir(exist_ok=True)
    (claw_env.home / "workspace" / "note.md").write_text("SECRET-42\n", encoding="utf-8")
    markup = 'Looking. <tool_call>{"name": "read", "arguments": {"path": "note.md"}}</tool_call>'
    claw_env.server.script(shaped(*split_text(markup, 2)), text("It says SECRET-42."))
    done = run_claw(claw_env.env, "agent", "-m", "hi", "--json")
    events = [json.loads(line) for line in done.stdout.splitlines()]
    deltas = "".join(e["data"].get("delta", "") for e in events if e["stream"] == "assistant")
    assert deltas == "Looking. It says SECRET-42."
    results = [e["data"] for e in events if e["stream"] == "tool" and e["data"]["phase"] == "result"]
    assert [r["isError"] for r in results] == [False] and "SECRET-42" in results[0]["result"]
