"""Where a transcript's last turn stands, followed entry by entry, and kept up to date by `Transcript`."""

from __future__ import annotations

from pathlib import Path

from claw.store.transcript import Transcript
from claw.store.turn_state import OpenTurn, interrupted_entry, open_turn
from claw.transcript_entries import partial_entry, trailing_partial

USER = {"role": "user", "content": "q", "runId": "r1"}
REPLY = {"role": "assistant", "content": "a", "runId": "r1"}
CALL = {"role": "assistant", "content": "", "runId": "r1", "toolCalls": [{"id": "c1", "name": "read"}]}
RESULT = {"role": "tool", "toolCallId": "c1", "name": "read", "content": "x", "runId": "r1"}


def test_a_turn_is_open_from_its_user_message_until_a_reply_without_tool_calls() -> None:
    assert open_turn([]) is None
    assert open_turn([USER]) == OpenTurn("r1", "")
    assert open_turn([USER, CALL]) == OpenTurn("r1", "")
    assert open_turn([USER, CALL, RESULT]) == OpenTurn("r1", "")
    assert open_turn([USER, CALL, RESULT, REPLY]) is None
    assert open_turn([USER, {**REPLY, "aborted": True}]) is None


def test_partials_carry_the_streaming_text_and_a_later_message_supersedes_them() -> None:
    streaming = [USER, partial_entry("r1", 0, "Hel"), partial_entry("r1", 3, "lo")]
    assert open_turn(streaming) == OpenTurn("r1", "Hello")
    assert open_turn([*streaming, {**REPLY, "content": "Hello there"}]) is None
    after_tools = [*streaming, CALL, RESULT]  # that reply was a tool call after all: the next one starts afresh
    assert open_turn([*after_tools, partial_entry("r1", 0, "Done")]) == OpenTurn("r1", "Done")
    assert open_turn([USER, partial_entry("r1", 5, "gap")]) == OpenTurn("r1", "")  # no start: not taken


def test_markers_and_outside_events_leave_the_turn_where_it_was() -> None:
    compaction = {"type": "compaction", "summary": "s", "firstKeptId": "x"}
    announce = {"role": "system", "content": "[subagent finished]", "subagentRunId": "s1"}
    assert open_turn([USER, REPLY, compaction, announce]) is None
    assert open_turn([USER, partial_entry("r1", 0, "Hel"), announce, partial_entry("r1", 3, "lo")]) == OpenTurn(
        "r1", "Hello"
    )
    note = {"role": "system", "content": "3 messages were dropped", "runId": "r2"}
    assert open_turn([USER, REPLY, note]) == OpenTurn("r2", "")  # a run's note starts its turn


def test_the_interrupted_entry_closes_the_turn_with_its_text() -> None:
    found = open_turn([USER, partial_entry("r1", 0, "Hel")])
    assert found is not None
    entry = interrupted_entry(found, "error", "model error: boom")
    assert entry == {
        "role": "assistant",
        "content": "Hel",
        "interrupted": True,
        "reason": "error",
        "runId": "r1",
        "error": "model error: boom",
    }
    assert open_turn([USER, partial_entry("r1", 0, "Hel"), entry]) is None


def test_trailing_partial_is_only_a_reply_still_streaming() -> None:
    assert trailing_partial([USER, partial_entry("r1", 0, "Hel"), partial_entry("r1", 3, "lo")]) == "Hello"
    assert trailing_partial([USER, partial_entry("r1", 0, "Hel"), {**REPLY, "content": "Hello"}]) is None
    assert trailing_partial([USER, REPLY]) is None


def test_the_transcript_keeps_the_state_current_across_appends_and_outside_writers(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    mine, other = Transcript(path), Transcript(path)
    mine.append(USER)
    assert mine.open_turn() == OpenTurn("r1", "")
    other.append(partial_entry("r1", 0, "Hi"))  # another process streams into it
    assert mine.open_turn() == OpenTurn("r1", "Hi")
    mine.append(REPLY)
    assert mine.open_turn() is None and other.open_turn() is None
    assert mine.message_count() == 2  # partials are not messages
