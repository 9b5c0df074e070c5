"""Forking a session: its transcript up to message N copied into a new session that names its parent.

The copy is written whole (one temp file, fsync, rename) before the new entry says how many messages it
has, so a crash leaves either no transcript or a complete one, never half a fork. The parent is only
read. The fork point must be a turn's end: a copy ending inside a turn (after a user message, or a tool
call with no result yet) would look to the next reader like a turn whose process died, and be closed
as interrupted, which is not what the user asked for. Entries keep their ids and times, so a search
hit or a compaction's `firstKeptId` means the same in both; partial entries (a reply's pieces while it
streamed) are left behind, the entry that superseded them says it all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from claw.errors import NotFoundError, UsageError
from claw.store.atomic import atomic_write_bytes
from claw.store.jsonl import encode_line
from claw.store.session_entry import SessionEntry
from claw.store.sessions import SessionStore
from claw.store.turn_state import TurnTracker
from claw.transcript_entries import PARTIAL, undone_ids


@dataclass(frozen=True, slots=True)
class ForkPoint:
    """Where a fork cuts: the entries copied, how many of them are messages, and which of the transcript's
    entries they are (its first `span` entries, less the partials at `dropped`)."""

    entries: list[dict[str, Any]]
    messages: int
    span: int
    dropped: frozenset[int]


def fork_point(entries: Sequence[dict[str, Any]], at: int | None) -> ForkPoint:
    """The first `at` messages of `entries` (all of them when None), with the markers between them.
    A `UsageError` when `at` is out of range or falls inside a turn (naming the turn ends around it)."""
    total = sum(1 for e in entries if "role" in e)
    want = total if at is None else at
    if want < 1 or want > total:
        raise UsageError(f"--at must be between 1 and {total} (the session's messages); got {want}")
    ends = _turn_ends(entries)
    if want not in ends:
        before = max((n for n in ends if n < want), default=None)
        after = min((n for n in ends if n > want), default=None)
        choices = " or ".join(str(n) for n in (before, after) if n is not None) or "none yet"
        raise UsageError(f"message {want} is inside a turn; fork at a turn's end instead (--at {choices})")
    kept: list[dict[str, Any]] = []
    dropped: set[int] = set()
    seen = span = 0
    for position, entry in enumerate(entries):
        if "role" in entry:
            if seen == want:
                break
            seen += 1
            span = position + 1  # markers after the last message copied belong to what comes after it
        if entry.get("type") == PARTIAL:
            dropped.add(position)
        else:
            kept.append(entry)
    kept = kept[: span - sum(1 for p in dropped if p < span)]
    return ForkPoint(kept, want, span, frozenset(p for p in dropped if p < span))


def _turn_ends(entries: Sequence[dict[str, Any]]) -> list[int]:
    """The message counts at which a turn of `entries` has ended."""
    tracker, seen, ends = TurnTracker(), 0, []
    for entry in entries:
        tracker.feed(entry)
        if "role" in entry:
            seen += 1
            if tracker.state() is None:
                ends.append(seen)
    return ends


@dataclass(frozen=True, slots=True)
class MessageForkPoints:
    """One user message of the active history and the two forks around it, as `fork_point` counts: `after`
    keeps its exchange (the end of its turn; None while that turn is open), `before` stops short of it (and
    of the notes written for its run, and of any undone exchange just before it, which a cut there would
    bring back: the marker undoing it comes later). `before` is 0 for the first exchange, None when no
    turn ends there."""

    number: int
    entry_id: str | None
    text: str
    created_at: str | None
    before: int | None
    after: int | None


def message_fork_points(entries: Sequence[dict[str, Any]]) -> list[MessageForkPoints]:
    """The user messages of `entries` not undone, oldest first, each with the forks around it."""
    ends, undone = set(_turn_ends(entries)), undone_ids(entries)
    points: list[MessageForkPoints] = []
    kept: list[int] = []  # the numbers of the messages not undone, so far
    seen = 0
    for position, entry in enumerate(entries):
        if "role" not in entry:
            continue
        seen += 1
        if entry.get("id") in undone:
            continue
        if entry.get("role") == "user":
            notes = _notes_before(entries, position)
            before = kept[-notes - 1] if len(kept) > notes else 0
            text = entry.get("display") or entry.get("content")
            points.append(MessageForkPoints(
                seen, entry.get("id"), text if isinstance(text, str) else "", entry.get("createdAt"),
                before if before == 0 or before in ends else None, None,
            ))  # fmt: skip
        elif points and points[-1].after is None and seen in ends:
            points[-1] = replace(points[-1], after=seen)
        kept.append(seen)
    return points


def _notes_before(entries: Sequence[dict[str, Any]], position: int) -> int:
    """How many notes were written for the run of the user message at `position`, just before it."""
    run_id, count = entries[position].get("runId"), 0
    i = position - 1
    while run_id and i >= 0 and entries[i].get("role") == "system" and entries[i].get("runId") == run_id:
        count, i = count + 1, i - 1
    return count


def fork_session(store: SessionStore, key: str, new_key: str, *, at: int | None = None) -> SessionEntry:
    """Copy session `key` up to message `at` (default: all) into the new session `new_key`; its entry."""
    parent = store.get(key)
    if parent is None:
        raise NotFoundError(f"no session {key.lower()!r} (see `claw sessions ls`)")
    if store.get(new_key) is not None:
        raise UsageError(f"session {new_key.lower()!r} already exists; pick another key with --as")
    transcript = store.transcript(parent)
    point = fork_point(transcript.read(), at)
    lines = _clean_lines(transcript.path.read_bytes(), point) if transcript.last_read_skipped == 0 else None
    child = store.get_or_create(new_key, chat_type=parent.chat_type, channel=parent.channel)
    data = lines if lines is not None else b"".join(encode_line(entry) for entry in point.entries)
    _write_whole(store, child.session_id, data)
    last = point.entries[-1]
    lineage = {
        "forkedFrom": parent.session_key,
        "forkedFromId": parent.session_id,
        "forkedAt": point.messages,
        "forkedAtEntry": last.get("id"),
    }
    preview = next((_preview(e) for e in reversed(point.entries) if _preview(e)), "")
    return store.update(  # one index write: a new entry has no `extra` of its own to keep
        child.session_key,
        message_count=point.messages,
        last_preview=preview,
        model_override=parent.model_override,
        extra={**child.extra, **lineage},
    )


def _preview(entry: dict[str, Any]) -> str:
    content = entry.get("content") if entry.get("role") in ("user", "assistant") else None
    return content if isinstance(content, str) else ""


def _clean_lines(data: bytes, point: ForkPoint) -> bytes | None:
    """The copied entries as the parent's own bytes, without encoding them again (most of a fork's time):
    possible when every non-blank line of the file is one of the entries read (nothing was skipped), so
    the n-th such line is the n-th entry. None when the file does not line up (then the entries are
    encoded afresh)."""
    lines = [line for line in data.split(b"\n") if line.strip(b" \t\r")]
    if len(lines) < point.span:
        return None
    kept = [line for n, line in enumerate(lines[: point.span]) if n not in point.dropped]
    return b"\n".join(kept) + b"\n" if kept else b""


def _write_whole(store: SessionStore, session_id: str, data: bytes) -> None:
    atomic_write_bytes(store.transcript_path(session_id), data)
