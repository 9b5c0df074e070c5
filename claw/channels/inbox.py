"""The durable inbox: inbound messages stored under their dedupe key before they are acknowledged.

`insert` is `INSERT … ON CONFLICT (dedupe_key) DO NOTHING`: a redelivered event finds its key
taken and is acknowledged without a second row (so without a second turn). Rows move
`pending` → `processing` (claimed, `attempts` counted) → `done` | `ignored` | `failed`;
a row still `processing` when the gateway died goes back to `pending` at the next start.
Each function takes a connection inside the caller's transaction (`Database.write`).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, fields
from typing import Any

from claw.channels.inbound import Inbound
from claw.channels.schema import status_counts
from claw.vocab.msg_context import MsgContext

_CTX_FIELDS = {f.name for f in fields(MsgContext)}


@dataclass(frozen=True, slots=True)
class InboxRow:
    id: int
    channel: str
    account_id: str
    dedupe_key: str
    conversation: str
    ctx: MsgContext
    reply_to: dict[str, Any]
    meta: dict[str, Any]
    status: str
    attempts: int
    run_id: str | None
    session_key: str | None
    outcome: str | None
    received_at: float

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "channel": self.channel,
            "accountId": self.account_id,
            "conversation": self.conversation,
            "senderId": self.ctx.sender_id,
            "status": self.status,
            "attempts": self.attempts,
            "runId": self.run_id,
            "sessionKey": self.session_key,
            "outcome": self.outcome,
            "receivedAt": self.received_at,
        }


def ctx_to_json(ctx: MsgContext) -> str:
    return json.dumps(asdict(ctx), ensure_ascii=False)


def ctx_from_json(text: str) -> MsgContext:
    raw = {k: v for k, v in json.loads(text).items() if k in _CTX_FIELDS}
    raw["attachments"] = tuple(raw.get("attachments") or ())
    return MsgContext(**raw)


def insert(conn: sqlite3.Connection, item: Inbound, now: float) -> int | None:
    """Store `item`; its row id, or None when its dedupe key is already stored (a redelivery)."""
    cursor = conn.execute(
        "INSERT INTO channel_inbox (channel, account_id, dedupe_key, conversation, ctx, reply_to, meta, status,"
        " received_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)"
        " ON CONFLICT (dedupe_key) DO NOTHING",
        (
            item.ctx.channel,
            item.ctx.account_id,
            item.dedupe_key,
            item.conversation,
            ctx_to_json(item.ctx),
            json.dumps(dict(item.reply_to), ensure_ascii=False),
            json.dumps(dict(item.meta), ensure_ascii=False),
            now,
            now,
        ),
    )
    return cursor.lastrowid if cursor.rowcount == 1 else None


def pending(conn: sqlite3.Connection, limit: int = 100) -> list[InboxRow]:
    """The oldest `pending` rows, in the order they were stored."""
    rows = conn.execute("SELECT * FROM channel_inbox WHERE status = 'pending' ORDER BY id LIMIT ?", (limit,)).fetchall()
    return [_row(r) for r in rows]


def claim(conn: sqlite3.Connection, row_id: int, now: float) -> int:
    """Mark the row `processing`; returns how many times it has been claimed now (1 the first time)."""
    conn.execute(
        "UPDATE channel_inbox SET status = 'processing', attempts = attempts + 1, updated_at = ? WHERE id = ?",
        (now, row_id),
    )
    return int(conn.execute("SELECT attempts FROM channel_inbox WHERE id = ?", (row_id,)).fetchone()[0])


def finish(
    conn: sqlite3.Connection,
    row_id: int,
    status: str,
    outcome: str,
    now: float,
    *,
    run_id: str | None = None,
    session_key: str | None = None,
) -> None:
    conn.execute(
        "UPDATE channel_inbox SET status = ?, outcome = ?, run_id = COALESCE(?, run_id),"
        " session_key = COALESCE(?, session_key), updated_at = ? WHERE id = ?",
        (status, outcome, run_id, session_key, now, row_id),
    )


def release(conn: sqlite3.Connection, row_id: int, now: float) -> None:
    """Back to `pending` (the gateway stopped before the turn ended): processed again at the next start."""
    conn.execute("UPDATE channel_inbox SET status = 'pending', updated_at = ? WHERE id = ?", (now, row_id))


def recover(conn: sqlite3.Connection, now: float) -> int:
    """At start: rows left `processing` by a gateway that died go back to `pending`."""
    cursor = conn.execute(
        "UPDATE channel_inbox SET status = 'pending', updated_at = ? WHERE status = 'processing'", (now,)
    )
    return cursor.rowcount


def counts(conn: sqlite3.Connection) -> dict[tuple[str, str], dict[str, int]]:
    return status_counts(conn, "channel_inbox", "status IN ('pending', 'processing')")


def _row(r: sqlite3.Row) -> InboxRow:
    return InboxRow(
        id=r["id"],
        channel=r["channel"],
        account_id=r["account_id"],
        dedupe_key=r["dedupe_key"],
        conversation=r["conversation"],
        ctx=ctx_from_json(r["ctx"]),
        reply_to=json.loads(r["reply_to"]),
        meta=json.loads(r["meta"]),
        status=r["status"],
        attempts=r["attempts"],
        run_id=r["run_id"],
        session_key=r["session_key"],
        outcome=r["outcome"],
        received_at=r["received_at"],
    )
