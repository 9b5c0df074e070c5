"""`/undo`: a marker takes the last exchange out of the model's history; the transcript keeps it."""

from __future__ import annotations

import pytest

from claw.agent.history import HistoryView
from claw.errors import UsageError
from claw.store.transcript import Transcript
from claw.store.undo import last_exchange, undo_last_exchange
from claw.transcript_entries import undone_ids


def _exchange(transcript: Transcript, n: int, *, tools: bool = False, note: bool = False) -> None:
    run = f"r{n}"
    if note:
        transcript.append({"role": "system", "content": f"note {n}", "runId": run})
    transcript.append({"role": "user", "content": f"question {n}", "runId": run})
    if tools:
        transcript.append({"role": "assistant", "content": "", "runId": run,
                           "toolCalls": [{"id": f"c{n}", "name": "read", "arguments": "{}"}]})  # fmt: skip
        transcript.append({"role": "tool", "toolCallId": f"c{n}", "name": "read", "content": "x", "runId": run})
    transcript.append({"role": "assistant", "content": f"answer {n}", "runId": run})


def _history(view: HistoryView, transcript: Transcript) -> list[str]:
    view.update(transcript.read())
    messages, _tokens = view.select(1_000_000)
    return [str(m.get("content")) for m in messages if m["role"] in ("user", "assistant") and m.get("content")]


def test_undo_drops_the_last_exchange_from_the_history_only(transcript: Transcript) -> None:
    view = HistoryView()
    _exchange(transcript, 1)
    _exchange(transcript, 2, tools=True, note=True)
    assert _history(view, transcript)[-2:] == ["question 2", "answer 2"]
    marker = undo_last_exchange(transcript)
    assert marker["messages"] == 5  # the note, the question, the tool call, its result, the answer
    assert _history(view, transcript) == ["question 1", "answer 1"]
    assert _history(HistoryView(), transcript) == ["question 1", "answer 1"]  # a fresh view agrees
    assert len([e for e in transcript.read() if "role" in e]) == 7  # all still in the transcript
    assert len(undone_ids(transcript.read())) == 5


def test_a_new_message_after_undo_follows_the_earlier_exchange(transcript: Transcript) -> None:
    view = HistoryView()
    _exchange(transcript, 1)
    _exchange(transcript, 2)
    _history(view, transcript)
    undo_last_exchange(transcript)
    _exchange(transcript, 3)
    assert _history(view, transcript) == ["question 1", "answer 1", "question 3", "answer 3"]
    assert _history(HistoryView(), transcript) == ["question 1", "answer 1", "question 3", "answer 3"]


def test_undo_twice_takes_the_one_before(transcript: Transcript) -> None:
    view = HistoryView()
    for n in (1, 2, 3):
        _exchange(transcript, n, tools=n == 2)
    undo_last_exchange(transcript)
    _history(view, transcript)
    undo_last_exchange(transcript)
    assert _history(view, transcript) == ["question 1", "answer 1"]
    undo_last_exchange(transcript)
    assert _history(view, transcript) == []
    with pytest.raises(UsageError, match="nothing to undo"):
        undo_last_exchange(transcript)
    assert last_exchange(transcript.read()) is None


def test_undo_refuses_while_a_turn_is_open(transcript: Transcript) -> None:
    _exchange(transcript, 1)
    transcript.append({"role": "user", "content": "still running", "runId": "r9"})
    with pytest.raises(UsageError, match="still running"):
        undo_last_exchange(transcript)
