"""Totals over the ledger: by day, model, agent, session, job or source, priced at view time.

SQLite sums the tokens per (group, provider, model, local); each of those few sums is priced here
with the prices in effect now (claw/usage/prices.py), and the group's cost is the sum of the
priced ones. Calls whose model has no known price are counted in `unpriced` and left out of the
cost; a group with tokens but no priced call at all has no cost (None, shown "—").
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from claw.errors import UsageError
from claw.usage.prices import PriceBook, Tokens

GROUPS: dict[str, str] = {
    "day": "day",
    "model": "provider || '/' || model",
    "agent": "agent_id",
    "session": "session_key",
    "job": "job_id",
    "source": "source",
    "run": "run_id",
}
"""`--by` choices and the SQL expression each groups on."""

_SPAN = re.compile(r"^(\d{1,6})\s*([mhdw])$")
_SPAN_SECONDS = {"m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400}


@dataclass(slots=True)
class Totals:
    """Sums over some calls; `cost` is None when none of them has a known price."""

    key: str | None = None
    calls: int = 0
    input: int = 0
    output: int = 0
    cached_input: int = 0
    cache_write: int = 0
    reasoning: int = 0
    estimated: int = 0
    unpriced: int = 0
    cost: float | None = None
    models: set[str] = field(default_factory=set)

    def add(self, counts: Sequence[Any], cost: float | None, model: str) -> None:
        calls, inp, out, cached, written, reasoning, estimated = (int(v or 0) for v in counts)
        self.calls += calls
        self.input += inp
        self.output += out
        self.cached_input += cached
        self.cache_write += written
        self.reasoning += reasoning
        self.estimated += estimated
        self.models.add(model)
        if cost is None:
            self.unpriced += calls if inp or out else 0
        else:
            self.cost = (self.cost or 0.0) + cost

    def merge(self, other: Totals) -> None:
        for name in ("calls", "input", "output", "cached_input", "cache_write", "reasoning", "estimated", "unpriced"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        if other.cost is not None:
            self.cost = (self.cost or 0.0) + other.cost
        self.models |= other.models

    @property
    def tokens(self) -> int:
        return self.input + self.output

    def to_wire(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "calls": self.calls,
            "inputTokens": self.input,
            "outputTokens": self.output,
            "cachedInputTokens": self.cached_input,
            "cacheWriteTokens": self.cache_write,
            "reasoningTokens": self.reasoning,
            "estimatedCalls": self.estimated,
            "unpricedCalls": self.unpriced,
            "cost": None if self.cost is None else round(self.cost, 8),
        }


def summarize(
    conn: sqlite3.Connection,
    by: str | None,
    prices: PriceBook,
    *,
    since: float | None = None,
    agent_id: str | None = None,
    session_key: str | None = None,
    job_id: str | None = None,
) -> tuple[list[Totals], Totals]:
    """(one `Totals` per group, in key order; the grand total). `by` None: the total alone.

    Whole days come from `usage_daily`; only the part of the first day after `since` (a span such as
    `24h` starts mid-day) is summed from the calls themselves, through the index on their time."""
    if by is not None and by not in GROUPS:
        raise UsageError(f"unknown grouping {by!r}: use one of {', '.join(GROUPS)}")
    filters = {"agent_id": agent_id, "session_key": session_key, "job_id": job_id}
    groups: dict[str | None, Totals] = {}
    first_day: str | None = None
    if by in ("session", "run") or session_key is not None:  # not in the day sums: from the calls alone
        where, args = _where(filters, [("ts >= ?", since)] if since is not None else [])
        _add(groups, conn.execute(_raw_sql(GROUPS[by] if by else "NULL", where), args), prices)
        return _result(groups, by)
    if since is not None:
        first = datetime.fromtimestamp(since).date()
        if local_midnight(first) < since:
            first = date.fromordinal(first.toordinal() + 1)
        first_day = first.isoformat()
        if since < local_midnight(first):
            where, args = _where(filters, [("ts >= ?", since), ("ts < ?", local_midnight(first))])
            _add(groups, conn.execute(_raw_sql(GROUPS[by] if by else "NULL", where), args), prices)
    daily_key = f"NULLIF({GROUPS[by]}, '')" if by and by != "model" else (GROUPS[by] if by else "NULL")
    where, args = _where(filters, [("day >= ?", first_day)] if first_day else [])
    sql = (
        f"SELECT {daily_key}, provider, model, local, SUM(calls), SUM(input_tokens), SUM(output_tokens),"
        " SUM(cached_input_tokens), SUM(cache_write_tokens), SUM(reasoning_tokens), SUM(estimated)"
        f" FROM usage_daily{where} GROUP BY 1, 2, 3, 4"
    )
    _add(groups, conn.execute(sql, args), prices)
    return _result(groups, by)


def _raw_sql(key: str, where: str) -> str:
    return (
        f"SELECT {key}, provider, model, local, COUNT(*), SUM(input_tokens), SUM(output_tokens),"
        " SUM(cached_input_tokens), SUM(cache_write_tokens), SUM(reasoning_tokens), SUM(estimated)"
        f" FROM usage_calls{where} GROUP BY 1, 2, 3, 4"
    )


def _result(groups: dict[str | None, Totals], by: str | None) -> tuple[list[Totals], Totals]:
    total = Totals("total")
    for totals in groups.values():
        total.merge(totals)
    ordered = sorted(groups.values(), key=lambda t: (t.key is None, t.key or ""))
    return (ordered if by else []), total


def _add(groups: dict[str | None, Totals], found: Iterable[Sequence[Any]], prices: PriceBook) -> None:
    for row in found:
        tokens = Tokens(int(row[5] or 0), int(row[6] or 0), int(row[7] or 0), int(row[8] or 0))
        cost = prices.cost(row[1], row[2], bool(row[3]), tokens)
        name = None if row[0] is None else str(row[0])
        groups.setdefault(name, Totals(name)).add(row[4:], cost, f"{row[1]}/{row[2]}")


def _where(filters: dict[str, str | None], extra: list[tuple[str, Any]]) -> tuple[str, list[Any]]:
    clauses = [clause for clause, _ in extra]
    args = [value for _, value in extra]
    for column, value in filters.items():
        if value is not None:
            clauses.append(f"{column} = ?")
            args.append(value)
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), args


def parse_since(text: str, now: float | None = None) -> float:
    """`7d`, `24h`, `30m`, `2w` back from now, or a date `YYYY-MM-DD` (its local midnight)."""
    now = time.time() if now is None else now
    span = _SPAN.match(text.strip().lower())
    if span:
        return now - int(span.group(1)) * _SPAN_SECONDS[span.group(2)]
    return local_midnight(parse_date(text))


def parse_date(text: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise UsageError(f"not a date or a span: {text!r} (use e.g. 7d, 24h, 2w or 2026-01-31)") from None


def local_midnight(day: date) -> float:
    return datetime(day.year, day.month, day.day).timestamp()


def day_start(now: float) -> float:
    return local_midnight(datetime.fromtimestamp(now).date())


def month_start(now: float) -> float:
    today = datetime.fromtimestamp(now).date()
    return local_midnight(today.replace(day=1))


def calls_of(conn: sqlite3.Connection, *, run_id: str | None = None, session_key: str | None = None,
             limit: int = 100) -> list[dict[str, Any]]:  # fmt: skip
    """The newest `limit` rows (of a run or a session), oldest first, as dicts of their columns."""
    where, args = [], []
    if run_id is not None:
        where.append("run_id = ?")
        args.append(run_id)
    if session_key is not None:
        where.append("session_key = ?")
        args.append(session_key)
    clause = " WHERE " + " AND ".join(where) if where else ""
    rows = conn.execute(f"SELECT * FROM usage_calls{clause} ORDER BY id DESC LIMIT ?", [*args, limit]).fetchall()
    return [dict(row) for row in reversed(rows)]
