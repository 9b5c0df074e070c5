"""Plain-text tables for `claw channels`, `claw pairing` and `claw outbox` (kept out of the command modules)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any


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


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    cells = [[str(h) for h in headers], *[["—" if c is None else str(c) for c in row] for row in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for row in cells:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def counts(values: dict[str, int]) -> str:
    return ", ".join(f"{n} {k}" for k, n in sorted(values.items())) or "0"


def accounts_table(accounts: list[dict[str, Any]]) -> None:
    table(
        ("CHANNEL", "ACCOUNT", "MODE", "DM POLICY", "GROUP POLICY"),
        [(a["channel"], a["accountId"], a.get("mode"), a.get("dmPolicy"), a.get("groupPolicy", "—")) for a in accounts],
    )


def status_lines(status: dict[str, Any]) -> None:
    if not status["running"]:
        print("No gateway is running the channels (start one with `claw gateway run`); backlog from gateway.db:")
    for a in status["accounts"]:
        print(f"{a['channel']}/{a['accountId']}: {a['state']}" + (f" — {a['detail']}" if a.get("detail") else ""))
        print(f"  last poll: {ago(a.get('lastPollAt'))} · last message: {ago(a.get('lastInboundAt'))}")
        if a.get("lastError"):
            print(f"  last error: {a['lastError']} ({ago(a.get('lastErrorAt'))})")
        print(f"  inbox: {counts(a['inbox'])} · outbox pending: {counts(a['outbox'])}")


def outbox_table(rows: list[dict[str, Any]]) -> None:
    table(
        ("ID", "CHANNEL", "ACCOUNT", "STATUS", "PARTS", "ATTEMPTS", "NEXT", "ERROR", "TEXT"),
        [
            (
                r["id"], r["channel"], r["accountId"], r["status"], f"{r['partsSent']}/{r['parts']}", r["attempts"],
                ago(r["nextAttemptAt"]) if r["status"] == "queued" else "—", (r["lastError"] or "—")[:40],
                r["preview"][:40],
            )
            for r in rows
        ],
    )  # fmt: skip
