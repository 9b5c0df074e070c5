"""Plain-text tables for `claw channels`, `claw pairing` and `claw outbox` (kept out of the command modules)."""

from __future__ import annotations

import time
from typing import Any

from claw.cli.table import Column, print_table
from claw.untrusted import shown


def ago(stamp: float | None) -> str:
    if not stamp:
        return "—"
    delta = time.time() - stamp
    if delta < 0:
        return f"in {_span(-delta)}"
    return f"{_span(delta)} ago"


def _span(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f}s"
    if seconds < 5400:
        return f"{seconds / 60:.0f}m"
    if seconds < 129_600:
        return f"{seconds / 3600:.0f}h"
    return f"{seconds / 86400:.0f}d"


def counts(values: dict[str, int]) -> str:
    return ", ".join(f"{n} {k}" for k, n in sorted(values.items())) or "0"


_WHO = (Column("CHANNEL"), Column("ACCOUNT", flex=True), Column("SENDER", flex=True), Column("NAME", flex=True))
"""The columns that say who a pairing request or approval is about."""


def accounts_table(accounts: list[dict[str, Any]], *, wide: bool = False) -> None:
    columns = (
        Column("CHANNEL"),
        Column("ACCOUNT", flex=True),
        Column("MODE"),
        Column("DM POLICY"),
        Column("GROUP POLICY"),
    )
    rows = [(a["channel"], a["accountId"], a.get("mode"), a.get("dmPolicy"), a.get("groupPolicy")) for a in accounts]
    print_table(columns, rows, wide=wide)


def pending_table(pending: list[dict[str, Any]], *, wide: bool = False) -> None:
    """Pairing codes waiting for `claw pairing approve`."""
    rows = [
        (p["channel"], p["accountId"], p["senderId"], p["senderName"], p["code"], ago(p["expiresAt"])) for p in pending
    ]
    print_table((*_WHO, Column("CODE"), Column("EXPIRES")), rows, wide=wide)


def approved_table(approved: list[dict[str, Any]], *, wide: bool = False) -> None:
    rows = [(a["channel"], a["accountId"], a["senderId"], a["senderName"], ago(a["approvedAt"])) for a in approved]
    print_table((*_WHO, Column("APPROVED")), rows, wide=wide)


def status_lines(status: dict[str, Any]) -> None:
    if not status["running"]:
        print("No gateway is running the channels (start one with `claw gateway run`); backlog from gateway.db:")
    for a in status["accounts"]:
        detail = f" — {a['detail']}" if a.get("detail") else ""
        print(shown(f"{a['channel']}/{a['accountId']}: {a['state']}{detail}"))
        print(f"  last poll: {ago(a.get('lastPollAt'))} · last message: {ago(a.get('lastInboundAt'))}")
        if a.get("lastError"):
            print(shown(f"  last error: {a['lastError']} ({ago(a.get('lastErrorAt'))})"))
        print(f"  inbox: {counts(a['inbox'])} · outbox pending: {counts(a['outbox'])}")


_OUTBOX_COLUMNS = (
    Column("ID", right=True),
    Column("CHANNEL"),
    Column("ACCOUNT", flex=True),
    Column("STATUS"),
    Column("PARTS"),
    Column("TRIES", right=True),
    Column("NEXT"),
    Column("ERROR", flex=True),
    Column("TEXT", flex=True),
)


def outbox_table(rows: list[dict[str, Any]], *, wide: bool = False) -> None:
    print_table(
        _OUTBOX_COLUMNS,
        [
            (
                r["id"], r["channel"], r["accountId"], r["status"], f"{r['partsSent']}/{r['parts']}", r["attempts"],
                ago(r["nextAttemptAt"]) if r["status"] == "queued" else None, r["lastError"], r["preview"],
            )
            for r in rows
        ],
        wide=wide,
    )  # fmt: skip
