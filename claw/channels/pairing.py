"""Pairing: an unknown sender gets a code; the owner approves it with `claw pairing approve CHANNEL CODE`.

Codes are 8 characters from an alphabet without 0/O/1/I (read aloud or typed from a phone
without doubt), drawn with `secrets`, valid for one hour; at most three are pending per
channel account, and a sender who already has one is not sent another. Check and insert
happen in one `BEGIN IMMEDIATE` transaction, so concurrent requests cannot exceed the cap.
"""

from __future__ import annotations

import secrets
import sqlite3
from dataclasses import dataclass
from typing import Any

from claw.errors import NotFoundError

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8
TTL_SECONDS = 3600.0
MAX_PENDING = 3


@dataclass(frozen=True, slots=True)
class PairingRequest:
    channel: str
    account_id: str
    sender_id: str
    sender_name: str | None
    code: str
    created_at: float
    expires_at: float

    def to_wire(self) -> dict[str, Any]:
        return {
            "channel": self.channel,
            "accountId": self.account_id,
            "senderId": self.sender_id,
            "senderName": self.sender_name,
            "code": self.code,
            "createdAt": self.created_at,
            "expiresAt": self.expires_at,
        }


def new_code() -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def request_code(
    conn: sqlite3.Connection, channel: str, account_id: str, sender_id: str, sender_name: str | None, now: float
) -> tuple[PairingRequest | None, bool]:
    """(the sender's pending request, whether it was created now); (None, False) when the cap is reached."""
    conn.execute("DELETE FROM channel_pairing WHERE expires_at <= ?", (now,))
    found = conn.execute(
        "SELECT * FROM channel_pairing WHERE channel = ? AND account_id = ? AND sender_id = ?",
        (channel, account_id, sender_id),
    ).fetchone()
    if found is not None:
        return _request(found), False
    waiting = conn.execute(
        "SELECT COUNT(*) FROM channel_pairing WHERE channel = ? AND account_id = ?", (channel, account_id)
    ).fetchone()[0]
    if waiting >= MAX_PENDING:
        return None, False
    taken = {r[0] for r in conn.execute("SELECT code FROM channel_pairing WHERE channel = ?", (channel,))}
    code = new_code()
    while code in taken:
        code = new_code()
    request = PairingRequest(channel, account_id, sender_id, sender_name, code, now, now + TTL_SECONDS)
    conn.execute(
        "INSERT INTO channel_pairing (channel, account_id, sender_id, sender_name, code, created_at, expires_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (channel, account_id, sender_id, sender_name, code, now, request.expires_at),
    )
    return request, True


def approve(conn: sqlite3.Connection, channel: str, code: str, now: float) -> PairingRequest:
    """Move the sender of a pending, unexpired `code` to the approved senders."""
    found = conn.execute(
        "SELECT * FROM channel_pairing WHERE channel = ? AND code = ? AND expires_at > ?",
        (channel.lower(), code.strip().upper(), now),
    ).fetchone()
    if found is None:
        raise NotFoundError(f"unknown or expired pairing code {code.strip().upper()!r} for channel {channel!r}")
    request = _request(found)
    conn.execute(
        "DELETE FROM channel_pairing WHERE channel = ? AND account_id = ? AND sender_id = ?",
        (request.channel, request.account_id, request.sender_id),
    )
    conn.execute(
        "INSERT OR REPLACE INTO channel_allow (channel, account_id, sender_id, sender_name, approved_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (request.channel, request.account_id, request.sender_id, request.sender_name, now),
    )
    return request


def pending(conn: sqlite3.Connection, now: float, channel: str | None = None) -> list[PairingRequest]:
    rows = conn.execute(
        "SELECT * FROM channel_pairing WHERE expires_at > ? AND (? IS NULL OR channel = ?) ORDER BY created_at",
        (now, channel, channel),
    ).fetchall()
    return [_request(r) for r in rows]


def approved(conn: sqlite3.Connection, channel: str | None = None) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT * FROM channel_allow WHERE (? IS NULL OR channel = ?) ORDER BY approved_at", (channel, channel)
    ).fetchall()
    return [
        {
            "channel": r["channel"],
            "accountId": r["account_id"],
            "senderId": r["sender_id"],
            "senderName": r["sender_name"],
            "approvedAt": r["approved_at"],
        }
        for r in rows
    ]


def is_approved(conn: sqlite3.Connection, channel: str, account_id: str, sender_id: str) -> bool:
    found = conn.execute(
        "SELECT 1 FROM channel_allow WHERE channel = ? AND account_id = ? AND sender_id = ?",
        (channel, account_id, sender_id),
    ).fetchone()
    return found is not None


def _request(r: sqlite3.Row) -> PairingRequest:
    return PairingRequest(
        r["channel"], r["account_id"], r["sender_id"], r["sender_name"], r["code"], r["created_at"], r["expires_at"]
    )
