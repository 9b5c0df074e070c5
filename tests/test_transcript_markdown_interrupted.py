"""Exports of turns that never finished: the interrupted reply is marked, superseded partials left out."""

from __future__ import annotations

from claw.transcript_entries import partial_entry
from claw.transcript_markdown import transcript_to_markdown

USER = {"role": "user", "content": "tell me a story", "runId": "r1"}


def test_an_interrupted_turn_is_marked_with_why() -> None:
    entries = [
        USER,
        partial_entry("r1", 0, "Once upon"),
        {"role": "assistant", "content": "Once upon", "interrupted": True, "reason": "exited", "runId": "r1"},
        {"role": "user", "content": "and then?", "runId": "r2"},
        {"role": "assistant", "content": "", "interrupted": True, "reason": "error", "error": "model error: 500"},
    ]
    text = transcript_to_markdown(entries, title="s")
    assert text.count("Once upon") == 1  # the partial is not rendered beside the entry that supersedes it
    assert "_(interrupted: the process running the turn ended before it finished)_" in text
    assert "_(interrupted: the run failed (model error: 500))_" in text  # shown though nothing had streamed
    assert "still streaming" not in text


def test_a_reply_still_streaming_is_shown_as_such() -> None:
    entries = [USER, partial_entry("r1", 0, "Once "), partial_entry("r1", 5, "upon")]
    text = transcript_to_markdown(entries, title="s")
    assert text.rstrip().endswith("## Assistant (still streaming)\n\nOnce upon")
