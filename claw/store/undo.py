"""`/undo`: take the last exchange out of a session's active history, keeping it in the transcript.

The transcript is append-only, so undoing appends a marker, `{"type": "undo", "fromId": X, "messages": n}`:
the entries from the one with id X up to the marker are undone. Readers that build the model's history
(`claw.agent.history`) drop them; readers that show the record (export, `sessions show`) can mark them with
`undone_ids` (both in `claw.transcript_entries`, for readers that may not import the store). The marker has
no role, so it is not a message and leaves the turn state where it was. An exchange is one turn: its user
message (with the notes written just before it for the same run), the assistant's tool calls, their results
and the reply. Undoing again takes the exchange before that one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from claw.errors import UsageError
from claw.store.transcript import Transcript
from claw.transcript_entries import UNDO, undone_ids


def last_exchange(entries: Sequence[dict[str, Any]]) -> tuple[int, int] | None:
    """(position of its first entry, messages in it) of the newest exchange not undone, or None."""
    undone = undone_ids(entries)
    start = None
    for i in range(len(entries) - 1, -1, -1):
        entry = entries[i]
        if entry.get("id") in undone:
            continue
        if entry.get("role") == "user":
            start = i
            break
    if start is None:
        return None
    run_id = entries[start].get("runId")
    while start > 0 and run_id and _note_of(entries[start - 1], run_id):
        start -= 1  # the notes written for this run, just before its message
    messages = sum(1 for e in entries[start:] if "role" in e and e.get("id") not in undone)
    return start, messages


def _note_of(entry: dict[str, Any], run_id: str) -> bool:
    return entry.get("role") == "system" and entry.get("runId") == run_id


def undo_last_exchange(transcript: Transcript) -> dict[str, Any]:
    """Append the marker undoing the newest exchange; the marker. A `UsageError` when there is none, or
    while a turn is still open (running, or waiting for its repair)."""
    entries = transcript.read()
    if transcript.open_turn() is not None:
        raise UsageError("a turn is still running in this session; wait for it (or /stop it), then undo")
    found = last_exchange(entries)
    if found is None:
        raise UsageError("nothing to undo: no exchange left in this session's history")
    start, messages = found
    return transcript.append({"type": UNDO, "fromId": entries[start]["id"], "messages": messages})
