"""Where a transcript's last turn stands: finished, or open (started, with no end written yet).

A turn starts with the user's entry (or a system event's, or the notes before it) and ends with an
assistant entry that has no tool calls: the reply, a reply cut short (`aborted`), or the entry that
closes a turn which never finished (`interrupted`, see `interrupted_entry`). Between them come
assistant entries with tool calls, tool results and `partial` entries: the text of a reply, saved
piece by piece while it streams, so that a process killed mid-reply leaves what it had received
(both kinds of entry are described in `claw.transcript_entries`).

Entries without a role (compactions, partials, kinds added later) and system entries written outside
any turn (no `runId`: a subagent's announcement) leave a turn where it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from claw.transcript_entries import PARTIAL, REASONS, partial_piece


@dataclass(frozen=True, slots=True)
class OpenTurn:
    """A turn the transcript ends inside of."""

    run_id: str | None
    """The run it belongs to (the newest `runId` among its entries); None for entries written without one."""
    partial: str
    """The text of the reply that was streaming when the transcript stops ("" when none was)."""


@dataclass(slots=True)
class TurnTracker:
    """Follows a transcript entry by entry (`feed`), so the state of its last turn costs nothing to ask."""

    open: bool = False
    run_id: str | None = None
    _pieces: list[str] = field(default_factory=list)
    _chars: int = 0

    def feed(self, entry: dict[str, Any]) -> None:
        if entry.get("type") == PARTIAL:
            self._add_partial(entry)
            return
        role = entry.get("role")
        if role is None or (role == "system" and not entry.get("runId")):
            return  # a marker, or an event from outside any turn
        self._pieces, self._chars = [], 0
        if role == "assistant" and not entry.get("toolCalls"):
            self.open = False
            return
        self.open = True  # a user message, a note, a tool call or its result: the turn goes on
        run_id = entry.get("runId")
        if role in ("user", "system"):
            self.run_id = run_id if isinstance(run_id, str) else None
        elif isinstance(run_id, str):
            self.run_id = run_id

    def state(self) -> OpenTurn | None:
        """The open turn the entries fed so far end in, or None when the last turn was finished."""
        return OpenTurn(self.run_id, "".join(self._pieces)) if self.open else None

    def _add_partial(self, entry: dict[str, Any]) -> None:
        piece = partial_piece(entry)
        if piece is None:
            return
        offset, text = piece
        self.open = True
        if isinstance(entry.get("runId"), str):
            self.run_id = entry["runId"]
        if offset == 0:
            self._pieces, self._chars = [text], len(text)
        elif offset == self._chars:  # anything else is not a continuation (never happens with one writer)
            self._pieces.append(text)
            self._chars += len(text)


def open_turn(entries: Iterable[dict[str, Any]]) -> OpenTurn | None:
    """The open turn `entries` end in, or None."""
    tracker = TurnTracker()
    for entry in entries:
        tracker.feed(entry)
    return tracker.state()


def interrupted_entry(turn: OpenTurn, reason: str, detail: str | None = None) -> dict[str, Any]:
    """The assistant entry that closes `turn`, which ended without a reply, for `reason` (a key of `REASONS`);
    its content is what had streamed of the reply, if anything."""
    if reason not in REASONS:
        raise ValueError(f"unknown reason {reason!r} for an interrupted turn")
    entry: dict[str, Any] = {"role": "assistant", "content": turn.partial, "interrupted": True, "reason": reason}
    if turn.run_id is not None:
        entry["runId"] = turn.run_id
    if detail:
        entry["error"] = detail
    return entry
