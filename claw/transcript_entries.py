"""Transcript entries beyond plain messages, spelled once for the store that writes them and every reader.

A leaf (it imports nothing of claw), so the renderers the console uses (`claw.transcript_markdown`)
can know them without importing the store, as `claw.vocab.run_event` is for run events.

- A **partial** entry, `{"type": "partial", "runId", "offset", "text"}`, holds a piece of a reply saved
  while it streams: `text` continues the reply at character `offset` (0 starts a reply). It has no
  `role`: readers that know only messages pass over it, and it never counts as a message. Any later
  entry with a role supersedes it (the reply's own entry repeats the whole text), so only partials at
  the very end of a transcript say anything: what a reply still streaming, or one whose process
  died, had received.
- An **interrupted** entry is an assistant message flagged `"interrupted": true` with a `reason`
  (a key of `REASONS`; `error` then holds the failure): it ends a turn that got no whole reply, its
  content being whatever had streamed. An assistant message rather than a role-less marker, because
  every reader already shows and counts those, and the model must be given one in its place.
- An **undo** marker, `{"type": "undo", "fromId": X, "messages": n}` (`claw.store.undo` writes it): the
  entries from the one with id X up to the marker are out of the active history. The model's history
  drops them; the console leaves them out; records (`sessions show`, exports) mark them undone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PARTIAL = "partial"
"""`type` of an entry holding a piece of a reply while it streams."""

UNDO = "undo"
"""`type` of the marker entry that undoes the entries from its `fromId` up to itself."""


def undone_ids(entries: Sequence[dict[str, Any]]) -> set[str]:
    """Ids of the entries that undo markers took out of the history."""
    undone: set[str] = set()
    position = {e["id"]: i for i, e in enumerate(entries) if isinstance(e.get("id"), str)}
    for i, entry in enumerate(entries):
        if entry.get("type") != UNDO:
            continue
        start = position.get(str(entry.get("fromId")))
        if start is None or start >= i:
            continue
        undone.update(e["id"] for e in entries[start:i] if isinstance(e.get("id"), str))
    return undone


REASONS = {
    "exited": "the process running the turn ended before it finished",
    "aborted": "the run was stopped",
    "error": "the run failed",
}
"""Why a turn was closed as interrupted (the entry's `reason`), in words."""


def partial_entry(run_id: str, offset: int, text: str) -> dict[str, Any]:
    """The entry saving `text`, the reply's characters from `offset` on, while it streams."""
    return {"type": PARTIAL, "runId": run_id, "offset": offset, "text": text}


def partial_piece(entry: dict[str, Any]) -> tuple[int, str] | None:
    """(offset, text) of a well-formed partial entry; None for any other entry."""
    if entry.get("type") != PARTIAL:
        return None
    offset, text = entry.get("offset"), entry.get("text")
    if not isinstance(text, str) or not isinstance(offset, int) or isinstance(offset, bool):
        return None
    return offset, text


def trailing_partial(entries: list[dict[str, Any]]) -> str | None:
    """The text of a reply still streaming at the end of `entries` (partials with nothing after them that
    has a role); None when the transcript does not end in one."""
    start = len(entries)
    while start > 0 and entries[start - 1].get("role") is None:
        start -= 1
    pieces: list[str] | None = None
    chars = 0
    for entry in entries[start:]:
        piece = partial_piece(entry)
        if piece is None:
            continue
        offset, text = piece
        if offset == 0:
            pieces, chars = [text], len(text)
        elif pieces is not None and offset == chars:
            pieces.append(text)
            chars += len(text)
    return None if pieces is None else "".join(pieces)
