"""Streams as real servers send them, in whole runs: tool-call arguments in one chunk or fifty (or as an
object), fragments without an index or with the id on each, a finished call sent again, an index reused for
a second call, chunks with empty choices, usage only at the end or never (then estimated, and marked so),
and no `[DONE]`."""

from __future__ import annotations

import json

import pytest

from tests.agent.conftest import run, said, terminal, tool_results
from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, text
from tests.support.stream_shapes import call_fragments, interleave_empty, shaped, split_text

READ = {"path": "note.md"}


def _sent_calls(claw_env: ClawEnv) -> list[tuple[str, str, dict]]:
    """The tool calls of the assistant message the second request carried back: (id, name, arguments)."""
    assistant = next(m for m in claw_env.server.chat_requests[1].messages if m.get("tool_calls"))
    return [(c["id"], c["function"]["name"], json.loads(c["function"]["arguments"])) for c in assistant["tool_calls"]]


@pytest.mark.parametrize("pieces", [1, 50])
@pytest.mark.parametrize("index", [0, None])
async def test_arguments_in_one_chunk_or_fifty_with_or_without_index(
    claw_env: ClawEnv, make_client, pieces: int, index: int | None
) -> None:
    client = make_client()
    args = {"path": "./././note.md", "offset": 1, "limit": 20}  # 50 characters of JSON and more
    fragments = call_fragments("read", args, index=index, pieces=pieces)
    assert len(fragments) == pieces
    claw_env.server.script(shaped(*fragments, finish_reason="tool_calls"), text("read it"))
    events = await run(client)

    assert [r["isError"] for r in tool_results(events)] == [False]
    assert _sent_calls(claw_env) == [("call_a", "read", args)]
    assert said(events) == "read it"


async def test_calls_without_index_are_told_apart_by_a_new_id(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    first = call_fragments("read", READ, id="call_1", index=None, pieces=4)
    second = call_fragments("read", {"path": "missing.md"}, id="call_2", index=None, pieces=4)
    claw_env.server.script(shaped(*first, *second, finish_reason="tool_calls"), text("both"))
    events = await run(client)

    assert [r["isError"] for r in tool_results(events)] == [False, True]
    assert [c[:2] for c in _sent_calls(claw_env)] == [("call_1", "read"), ("call_2", "read")]


async def test_complete_calls_without_id_or_index_are_two_calls(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    first = call_fragments("read", READ, id=None, index=None)
    second = call_fragments("read", {"path": "missing.md"}, id=None, index=None)
    claw_env.server.script(shaped(*first, *second, finish_reason="tool_calls"), text("both"))
    events = await run(client)

    assert [r["isError"] for r in tool_results(events)] == [False, True]
    assert [c[2] for c in _sent_calls(claw_env)] == [READ, {"path": "missing.md"}]


async def test_repeated_ids_and_names_on_every_fragment_are_one_call(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    fragments = call_fragments("read", READ, pieces=6, id_on_each=True, name_on_each=True)
    claw_env.server.script(shaped(*fragments, finish_reason="tool_calls"), text("one"))
    events = await run(client)

    assert [r["isError"] for r in tool_results(events)] == [False]
    assert _sent_calls(claw_env) == [("call_a", "read", READ)]


async def test_a_finished_call_sent_again_whole_is_still_one_call(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    fragments = call_fragments("read", READ, pieces=4)
    again = call_fragments("read", READ, pieces=1)  # the whole call once more, same id and index
    claw_env.server.script(shaped(*fragments, *again, finish_reason="tool_calls"), text("once"))
    events = await run(client)

    assert [r["isError"] for r in tool_results(events)] == [False]
    assert _sent_calls(claw_env) == [("call_a", "read", READ)]


async def test_arguments_sent_as_an_object_are_read(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    call = {"index": 0, "id": "call_o", "type": "function", "function": {"name": "read", "arguments": READ}}
    claw_env.server.script(shaped({"tool_calls": [call]}, finish_reason="tool_calls"), text("object"))
    events = await run(client)

    assert [r["isError"] for r in tool_results(events)] == [False]
    assert _sent_calls(claw_env) == [("call_o", "read", READ)]


async def test_an_index_reused_with_a_new_id_is_a_second_call(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    first = call_fragments("read", READ, id="call_1", index=0, pieces=2)
    second = call_fragments("read", READ, id="call_2", index=0, pieces=2)
    claw_env.server.script(shaped(*first, *second, finish_reason="tool_calls"), text("twice"))
    events = await run(client)

    assert [r["isError"] for r in tool_results(events)] == [False, False]
    assert [c[0] for c in _sent_calls(claw_env)] == ["call_1", "call_2"]


async def test_an_id_made_up_for_every_fragment_of_one_call_is_still_one_call(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    fragments = call_fragments("read", READ, pieces=5)
    for n, fragment in enumerate(fragments):
        fragment["tool_calls"][0]["id"] = f"call_{n}"
    claw_env.server.script(shaped(*fragments, finish_reason="tool_calls"), text("one"))
    events = await run(client)

    assert [r["isError"] for r in tool_results(events)] == [False]
    assert _sent_calls(claw_env) == [("call_0", "read", READ)]


async def test_chunks_with_empty_choices_are_skipped(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    calls = interleave_empty(call_fragments("read", READ, pieces=5))
    reply = interleave_empty(split_text("All read.", 2))
    claw_env.server.script(shaped(*calls, finish_reason="tool_calls"), shaped(*reply))
    events = await run(client)

    assert [r["isError"] for r in tool_results(events)] == [False]
    assert said(events) == "All read." and terminal(events)["text"] == "All read."


@pytest.mark.parametrize("usage_at", ["final", "finish"])
async def test_usage_only_at_the_end_is_reported_as_sent(claw_env: ClawEnv, make_client, usage_at: str) -> None:
    client = make_client()
    claw_env.server.script(shaped(*split_text("Hello there.", 3), usage=Usage(321, 7), usage_at=usage_at))
    events = await run(client)

    assert terminal(events)["usage"] == {"input": 321, "output": 7}


async def test_no_usage_at_all_is_estimated_and_marked(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    reply = "An answer of forty characters, exactly!!"
    reasoning = split_text("twenty chars thought", 6, key="reasoning_content")
    claw_env.server.script(shaped(*reasoning, *split_text(reply, 3), usage_at="none"))
    events = await run(client)

    usage = terminal(events)["usage"]
    assert usage["estimated"] is True
    assert usage["output"] == (40 + 20) // 4 and usage["input"] > 0  # reasoning is output too


async def test_a_stream_without_done_ends_the_reply(claw_env: ClawEnv, make_client) -> None:
    client = make_client()
    claw_env.server.script(
        shaped(*call_fragments("read", READ, pieces=3), finish_reason="tool_calls", done=False),
        shaped(*split_text("Finished without DONE.", 4), done=False, usage_at="none"),
    )
    events = await run(client)

    assert terminal(events)["phase"] == "end"
    assert said(events) == "Finished without DONE."
    assert [r["isError"] for r in tool_results(events)] == [False]
