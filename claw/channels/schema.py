"""The channels' tables in gateway.db, as numbered migrations (see `claw.store.db`).

- `channel_inbox`: every verified, normalised inbound message, written under its dedupe
  key (UNIQUE) before the platform is acknowledged; `pending` → `processing` → `done`
  (or `ignored`: access control or mention gating dropped it; `failed`).
- `channel_outbox`: every reply, rendered and split into parts; `queued` → `sending`
  (the attempt is committed before the platform is called) → `queued` for the next part
  or `sent`; `unknown_after_send` when a crash or an ambiguous error leaves it unclear
  whether the platform took a part that cannot be sent idempotently; `dead` after the
  last attempt or a permanent error. `next_part` is the resume point of a split reply.
- `channel_pairing` / `channel_allow`: pending pairing codes and approved senders.
- `channel_state`: per-account values that must survive a restart (Telegram's update
  offset) and its health (last poll, last error).

Times are Unix epoch seconds (REAL).
"""

from __future__ import annotations

import sqlite3

from claw.store.db import Migration

_TABLES = """
CREATE TABLE channel_inbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel TEXT NOT NULL,
    account_id TEXT NOT NULL,
    dedupe_key TEXT NOT NULL UNIQUE,
    conversation TEXT NOT NULL,
    ctx TEXT NOT NULL,
    reply_to TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'done', 'ignored', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    run_id TEXT,
    session_key TEXT,
    outcome TEXT,
    received_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX channel_inbox_pending ON channel_inbox (id) WHERE status = 'pending';
CREATE TABLE channel_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    channel TEXT NOT NULL,
    account_id TEXT NOT NULL,
    conversation TEXT NOT NULL,
    target TEXT NOT NULL,
    parts TEXT NOT NULL,
    next_part INTEGER NOT NULL DEFAULT 0,
    message_ids TEXT NOT NULL DEFAULT '[]',
    edit_message_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('queued', 'sending', 'sent', 'unknown_after_send', 'dead')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at REAL NOT NULL,
    last_error TEXT,
    inbox_id INTEGER,
    run_id TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    sent_at REAL
);
CREATE INDEX channel_outbox_queued ON channel_outbox (next_attempt_at) WHERE status = 'queued';
CREATE INDEX channel_outbox_conversation ON channel_outbox (conversation, id);
CREATE TABLE channel_pairing (
    channel TEXT NOT NULL,
    account_id TEXT NOT NULL,
    sender_id TEXT NOT NULL,
    sender_name TEXT,
    code TEXT NOT NULL,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    PRIMARY KEY (channel, account_id, sender_id)
);
CREATE UNIQUE INDEX channel_pairing_code ON channel_pairing (channel, code);
CREATE TABLE channel_allow (
    channel TEXT NOT NULL,
    account_id TEXT NOT NULL,
    sender_id TEXT NOT NULL,
    sender_name TEXT,
    approved_at REAL NOT NULL,
    PRIMARY KEY (channel, account_id, sender_id)
);
CREATE TABLE channel_state (
    channel TEXT NOT NULL,
    account_id TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT,
    updated_at REAL NOT NULL,
    PRIMARY KEY (channel, account_id, key)
)
"""

MIGRATIONS: tuple[Migration, ...] = (Migration("channels", 1, "inbox_outbox_pairing", _TABLES),)


def status_counts(conn: sqlite3.Connection, table: str, where: str) -> dict[tuple[str, str], dict[str, int]]:
    """Rows of `table` (channel_inbox or channel_outbox) matching `where`, counted per account and status."""
    out: dict[tuple[str, str], dict[str, int]] = {}
    for channel, account, status, count in conn.execute(
        f"SELECT channel, account_id, status, COUNT(*) FROM {table} WHERE {where} GROUP BY 1, 2, 3"
    ):
        out.setdefault((channel, account), {})[status] = count
    return out
