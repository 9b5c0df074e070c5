"""Tool calls written as text, in whole runs: each format, streamed in awkward splits, runs its tool and its
result goes back to the model; no tag ever reaches an assistant delta; bad calls are errors the model sees."""

from __future__ import annotations

import json

import pytest

from tests.agent.conftest import NOTE, run, said, terminal, thought, tool_results, transcript
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.stream_shapes import shaped, split_text

READ = {"path": "note.md"}
CASES = {  # case → (toolCallFormat, text before the call, the markup)
    "hermes": ("hermes", "Checking. ", '<tool_call>\n{"name": "read", "arguments": {"path": "note.md"}}\n</tool_call>'),
    "qwen3_coder": (
        "qwen3_coder",
        "",
        "<tool_call>\n<function=read>\n<parameter=path>\nnote.md\n</parameter>\n</function>\n</tool_call>",
    ),
    "qwen3_coder_unwrapped": ("qwen3_coder", "On it. ", "<function=read>\n<parameter=path>\nnote.md\n</parameter>"),
    "mistral": ("mistral", "", '[TOOL_CALLS][{"name": "read", "arguments": {"path": "note.md"}}]'),
    "mistral_args": ("mistral", "", '[TOOL_CALLS]read[ARGS]{"path": "note.md"}'),
    "llama": ("llama", "", '<|python_tag|>{"name": "read", "parameters": {"path": "note.md"}}<|eom_id|>'),
    "llama_pythonic": ("llama", "", '<|python_tag|>read(path="note.md")<|eom_id|>'),
    "pythonic": ("pythonic", "", '[read(path="note.md")]'),
    "json": ("json", "", '{"name": "read", "arguments": {"path": "note.md"}}'),
}
MARKUP_BITS = ("<", ">", "[TOOL_CALLS]", "python_tag", '"name"', "read(")


def _config(fmt: str) -> str:
    return f'[models."test-model"]\ntoolCallFormat = "{fmt}"\n'


@pytest.mark.parametrize("size", [1, 4, 9])
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("configured", [False, True])
async def test_each_format_in_awkward_splits_runs_the_tool(
    claw_env: ClawEnv, make_client, case: str, size: int, configured: bool
) -> None:
    fmt, before, markup = CASES[case]
    client = make_client(_config(fmt) if configured else "")
    claw_env.server.script(shaped(*split_text(before + markup, size)), text("The note says SECRET-42."))
    events = await run(client, "what does the note say?")

    assert terminal(events)["phase"] == "end"
    assert said(events) == before + "The note says SECRET-42."
    results = tool_results(events)
    assert [(r["name"], r["isError"]) for r in results] == [("read", False)]
    assert "SECRET-42" in results[0]["result"]
    second = claw_env.server.chat_requests[1].messages
    assistant, tool = second[-2], second[-1]
    assert assistant["role"] == "assistant" and assistant["content"] in (before or None, before)
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in assistant["tool_calls"]] == [
        ("read", READ)
    ]
    assert tool["role"] == "tool" and tool["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert NOTE.strip() in tool["content"]


@pytest.mark.parametrize("size", [1, 2, 3, 5])
async def test_think_tags_split_mid_tag_are_thinking_and_the_call_after_them_runs(
    claw_env: ClawEnv, make_client, size: int
) -> None:
    client = make_client()
    call = '<tool_call>{"name": "read", "arguments": {"path": "note.md"}}</tool_call>'
    content = f"<think>The user wants <the note>; read it.</think>\n{call}"
    reply = "<think>Got it.</think>It says SECRET-42 [1]."
    claw_env.server.script(shaped(*split_text(content, size)), shaped(*split_text(reply, size)))
    events = await run(client)

    assert said(events) == "It says SECRET-42 [1]."
    assert thought(events) == "The user wants <the note>; read it.Got it."
    assert [r["isError"] for r in tool_results(events)] == [False]
    assert terminal(events)["text"] == "It says SECRET-42 [1]."
    entries = [e for e in transcript(claw_env.home) if e["role"] == "assistant"]
    assert [(e["content"], e.get("thinking")) for e in entries] == [
        ("", "The user wants <the note>; read it."),
        ("It says SECRET-42 [1].", "Got it."),
    ]  # stored apart from the reply, never with its tags


async def test_an_unknown_tool_name_is_an_error_result_the_model_sees(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    markup = '<tool_call>{"name": "launch_rockets", "arguments": {"count": 3}}</tool_call>'
    claw_env.server.script(shaped(*split_text(markup, 5)), text("I cannot launch rockets."))
    events = await run(client)

    (result,) = tool_results(events)
    assert result["isError"] is True and "launch_rockets" in result["result"] and "read" in result["result"]
    sent = claw_env.server.chat_requests[1].messages[-1]
    assert sent["role"] == "tool" and "no tool named 'launch_rockets'" in sent["content"]
    assert said(events) == "I cannot launch rockets."


async def test_malformed_json_is_an_error_result_the_model_sees(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    markup = '<tool_call>{"name": "read", "arguments": {"path": }</tool_call>'
    claw_env.server.script(shaped(*split_text(markup, 3)), text("Sorry, retrying."))
    events = await run(client)

    (result,) = tool_results(events)
    assert result["isError"] is True and "could not be parsed" in result["result"]
    sent = claw_env.server.chat_requests[1].messages[-1]
    assert sent["role"] == "tool" and "could not be parsed" in sent["content"]
    assert not any(bit in said(events) for bit in MARKUP_BITS)


async def test_native_leaves_text_as_text(claw_env: ClawEnv, make_client) -> None:
    client = make_client(_config("native"))
    _fmt, _before, markup = CASES["hermes"]
    claw_env.server.script(shaped(*split_text(markup, 4)))
    events = await run(client)

    assert said(events) == markup and terminal(events)["text"] == markup
    assert tool_results(events) == [] and len(claw_env.server.chat_requests) == 1


async def test_one_named_format_reads_only_that_format(claw_env: ClawEnv, make_client) -> None:
    client = make_client(_config("mistral"))
    _fmt, _before, markup = CASES["hermes"]
    claw_env.server.script(shaped(*split_text(markup, 4)))
    events = await run(client)

    assert said(events) == markup and tool_results(events) == []


async def test_markup_that_holds_no_call_is_released_as_the_reply(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    reply = '{"answer": 42, "unit": "none"}'
    claw_env.server.script(shaped(*split_text(reply, 2)))
    events = await run(client)

    assert said(events) == reply and terminal(events)["text"] == reply
    assert tool_results(events) == []


async def test_markup_beside_native_calls_is_dropped_and_the_native_call_runs(claw_env: ClawEnv, make_client) -> None:
    from tests.support.stream_shapes import call_fragments

    client = make_client()
    markup = '<tool_call>{"name": "read", "arguments": {"path": "other.md"}}</tool_call>'
    claw_env.server.script(
        shaped(*split_text(markup, 6), *call_fragments("read", READ, pieces=3), finish_reason="tool_calls"),
        text("done"),
    )
    events = await run(client)

    (result,) = tool_results(events)
    assert "SECRET-42" in result["result"]
    assert said(events) == "done"
