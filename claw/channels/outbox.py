"""The durable outbox: rendered replies waiting to be sent, with per-part progress.

A row is `queued` until the delivery worker starts an attempt: it commits `sending`
*before* it calls the platform, then records each part as sent (`next_part` moves on, the
platform's message id is kept). After a crash a row found `sending` is resent only where
that is harmless (the platform dedupes on the idempotency key, or the part is an edit);
otherwise it becomes `unknown_after_send` and waits for `claw outbox retry`. A failed attempt
goes back to `queued` with a later `next_attempt_at`, or to `dead` after the last attempt.
Replies to one conversation go out in order: a row waits while an older one of the same
conversation is still open.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from claw.channels.schema import status_counts
from claw.errors import NotFoundError, UsageError

OPEN = ("queued", "sending")


@dataclass(frozen=True, slots=True)
class OutboxRow:
    id: int
    channel: str
    account_id: str
    conversation: str
    target: dict[str, Any]
    parts: list[str]
    next_part: int
    message_ids: list[str | None]
    edit_message_id: str | None
    status: str
    attempts: int
    next_attempt_at: float
    last_error: str | None
    inbox_id: int | None
    run_id: str | None
    created_at: float
    updated_at: float
    sent_at: float | None

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "channel": self.channel,
            "accountId": self.account_id,
            "conversation": self.conversation,
            "status": self.status,
            "parts": len(self.parts),
            "partsSent": self.next_part,
            "attempts": self.attempts,
            "nextAttemptAt": self.next_attempt_at,
            "lastError": self.last_error,
            "inboxId": self.inbox_id,
            "runId": self.run_id,
            "createdAt": self.created_at,
            "sentAt": self.sent_at,
            "preview": " ".join(self.parts[0].split())[:80] if self.parts else "",
        }


def enqueue(
    conn: sqlite3.Connection,
    *,
    channel: str,
    account_id: str,
    conversation: str,
    target: dict[str, Any],
    parts: Sequence[str],
    now: float,
    edit_message_id: str | None = None,
    inbox_id: int | None = None,
    run_id: str | None = None,
) -> int:
    cursor = conn.execute(
        "INSERT INTO channel_outbox (channel, account_id, conversation, target, parts, edit_message_id, status,"
        " next_attempt_at, inbox_id, run_id, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?)",
        (
            channel,
            account_id,
            conversation,
            json.dumps(target, ensure_ascii=False),
            json.dumps(list(parts), ensure_ascii=False),
            edit_message_id,
            now,
            inbox_id,
            run_id,
            now,
            now,
        ),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


_READY = (
    "status = 'queued' AND NOT EXISTS (SELECT 1 FROM channel_outbox p WHERE p.conversation = o.conversation"
    " AND p.id < o.id AND p.status IN ('queued', 'sending'))"
)


def due(conn: sqlite3.Connection, now: float, limit: int, skip: Sequence[str] = ()) -> list[OutboxRow]:
    """Queued rows whose time has come, oldest first, that no older open row of their conversation holds
    back; conversations in `skip` (being served right now) are left out."""
    rows = conn.execute(
        f"SELECT * FROM channel_outbox o WHERE {_READY} AND next_attempt_at <= ?{_not_in(skip)} ORDER BY id LIMIT ?",
        (now, *skip, limit),
    ).fetchall()
    return [_row(r) for r in rows]


def next_due_at(conn: sqlite3.Connection, skip: Sequence[str] = ()) -> float | None:
    """When the next row that `due` could return comes due (None: nothing is waiting)."""
    found = conn.execute(
        f"SELECT MIN(next_attempt_at) FROM channel_outbox o WHERE {_READY}{_not_in(skip)}", tuple(skip)
    ).fetchone()[0]
    return None if found is None else float(found)


def _not_in(skip: Sequence[str]) -> str:
    return f" AND o.conversation NOT IN ({', '.join('?' * len(skip))})" if skip else ""


def get(conn: sqlite3.Connection, row_id: int) -> OutboxRow:
    found = conn.execute("SELECT * FROM channel_outbox WHERE id = ?", (row_id,)).fetchone()
    if found is None:
        raise NotFoundError(f"no outbox entry {row_id} (see `claw outbox ls`)")
    return _row(found)


def start_attempt(conn: sqlite3.Connection, row_id: int, now: float) -> None:
    conn.execute("UPDATE channel_outbox SET status = 'sending', updated_at = ? WHERE id = ?", (now, row_id))


def part_sent(conn: sqlite3.Connection, row_id: int, part: int, message_id: str | None, now: float) -> bool:
    """Record part `part` as sent; True when that was the last part (the row is `sent`)."""
    row = get(conn, row_id)
    ids = [*row.message_ids[:part], message_id]
    done = part + 1 >= len(row.parts)
    conn.execute(
        "UPDATE channel_outbox SET next_part = ?, message_ids = ?, attempts = 0, last_error = NULL, status = ?,"
        " next_attempt_at = ?, updated_at = ?, sent_at = CASE WHEN ? THEN ? ELSE sent_at END WHERE id = ?",
        (part + 1, json.dumps(ids), "sent" if done else "queued", now, now, done, now, row_id),
    )
    return done


def failed(conn: sqlite3.Connection, row_id: int, error: str, retry_at: float | None, now: float) -> None:
    """One failed attempt: back to `queued` until `retry_at`, or `dead` when `retry_at` is None."""
    status = "queued" if retry_at is not None else "dead"
    conn.execute(
        "UPDATE channel_outbox SET status = ?, attempts = attempts + 1, last_error = ?, next_attempt_at = ?,"
        " updated_at = ? WHERE id = ?",
        (status, error[:500], retry_at if retry_at is not None else now, now, row_id),
    )


def mark_unknown(conn: sqlite3.Connection, row_id: int, error: str, now: float) -> None:
    conn.execute(
        "UPDATE channel_outbox SET status = 'unknown_after_send', last_error = ?, updated_at = ? WHERE id = ?",
        (error[:500], now, row_id),
    )


def recover(conn: sqlite3.Connection, resend_safe: Callable[[OutboxRow], bool], now: float) -> tuple[int, int]:
    """At start: rows left `sending` by a gateway that died. Resent (queued again) where `resend_safe`
    says a repeat is harmless, else `unknown_after_send`. Returns (requeued, unknown)."""
    requeued = unknown = 0
    for raw in conn.execute("SELECT * FROM channel_outbox WHERE status = 'sending'").fetchall():
        row = _row(raw)
        if resend_safe(row):
            conn.execute("UPDATE channel_outbox SET status = 'queued', updated_at = ? WHERE id = ?", (now, row.id))
            requeued += 1
        else:
            mark_unknown(conn, row.id, f"interrupted while sending part {row.next_part + 1}: may have arrived", now)
            unknown += 1
    return requeued, unknown


def retry(conn: sqlite3.Connection, row_id: int, now: float) -> OutboxRow:
    """`claw outbox retry`: a dead, unknown or waiting row is queued now, resuming at its first unsent part."""
    row = get(conn, row_id)
    if row.status == "sent":
        raise UsageError(f"outbox entry {row_id} was sent already; nothing to retry")
    if row.status == "sending":
        raise UsageError(f"outbox entry {row_id} is being sent right now")
    conn.execute(
        "UPDATE channel_outbox SET status = 'queued', attempts = 0, next_attempt_at = ?, updated_at = ? WHERE id = ?",
        (now, now, row_id),
    )
    return get(conn, row_id)


def listing(conn: sqlite3.Connection, *, dead: bool = False, limit: int = 100) -> list[OutboxRow]:
    """Open and problem rows (everything not yet sent), newest last; with `dead`, the dead letters only."""
    where = "status = 'dead'" if dead else "status != 'sent'"
    rows = conn.execute(
        f"SELECT * FROM (SELECT * FROM channel_outbox WHERE {where} ORDER BY id DESC LIMIT ?) ORDER BY id", (limit,)
    ).fetchall()
    return [_row(r) for r in rows]


def counts(conn: sqlite3.Connection) -> dict[tuple[str, str], dict[str, int]]:
    return status_counts(conn, "channel_outbox", "status != 'sent'")


def _row(r: sqlite3.Row) -> OutboxRow:
    return OutboxRow(
        id=r["id"],
        channel=r["channel"],
        account_id=r["account_id"],
        conversation=r["conversation"],
        target=json.loads(r["target"]),
        parts=json.loads(r["parts"]),
        next_part=r["next_part"],
        message_ids=json.loads(r["message_ids"]),
        edit_message_id=r["edit_message_id"],
        status=r["status"],
        attempts=r["attempts"],
        next_attempt_at=r["next_attempt_at"],
        last_error=r["last_error"],
        inbox_id=r["inbox_id"],
        run_id=r["run_id"],
        created_at=r["created_at"],
        updated_at=r["updated_at"],
        sent_at=r["sent_at"],
    )
