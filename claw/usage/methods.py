"""RPC methods `usage.summary|cost|calls|notices|prune`: the numbers `claw usage`, `/cost` and remote
clients show, computed in the gateway that holds the ledger, so every client sees the same ones.
Costs are priced when asked (claw/usage/prices.py); `pricesTaken` dates the shipped prices."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from datetime import date, timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import Field

from claw.api.method import RpcMethod, table
from claw.api.params import NonEmptyStr, NoParams, OptionalStr, Params, takes
from claw.errors import NotFoundError
from claw.protocol.scopes import ADMIN, READ
from claw.usage.budgets import notices
from claw.usage.prices import DEFAULTS_TAKEN
from claw.usage.report import (
    Totals,
    calls_of,
    local_midnight,
    parse_date,
    parse_since,
    summarize,
)

if TYPE_CHECKING:
    from claw.usage.prices import PriceBook

MAX_CALLS = 10_000

T = TypeVar("T")


class UsageBook(Protocol):
    """What the methods read and change of the usage capability (`UsageCapability` is one)."""

    def prices(self) -> PriceBook: ...

    async def aread(self, fn: Callable[[sqlite3.Connection], T]) -> T: ...

    async def cost(self, session_key: str | None) -> dict[str, Any]: ...

    async def prune(self, before: float) -> int: ...


class SummaryParams(Params):
    by: OptionalStr = None
    since: OptionalStr = None
    agent_id: OptionalStr = None
    session_key: OptionalStr = None
    job_id: OptionalStr = None


class CostParams(Params):
    """claw's `usage.cost` (`sessionKey`: that session's too); with OpenClaw's `days` (and `agentId`, or
    `agentScope: "all"`), OpenClaw's cost summary of the last `days` days instead."""

    session_key: OptionalStr = None
    days: int | None = Field(None, ge=1, le=3650, description="a whole number of days from 1 to 3650")
    agent_id: OptionalStr = None
    agent_scope: OptionalStr = None


class CallsParams(Params):
    run_id: OptionalStr = None
    session_key: OptionalStr = None
    limit: int = Field(100, ge=1, le=MAX_CALLS, description=f"a whole number from 1 to {MAX_CALLS}")


class PruneParams(Params):
    before: NonEmptyStr


@takes(SummaryParams)
async def usage_summary(usage: UsageBook, _gateway: object, params: SummaryParams) -> dict[str, Any]:
    since = parse_since(params.since) if params.since else None
    prices = usage.prices()
    job_ref = params.job_id
    job_id = await usage.aread(lambda c: job_id_of(c, job_ref)) if job_ref else None
    groups, total = await usage.aread(
        lambda c: summarize(c, params.by, prices, since=since, agent_id=params.agent_id,
                            session_key=params.session_key, job_id=job_id)
    )  # fmt: skip
    given = await usage.aread(lambda c: notices(c, since))
    return {
        "by": params.by,
        "since": since,
        "groups": [g.to_wire() for g in groups],
        "total": total.to_wire(),
        "notices": given,
        "pricesTaken": DEFAULTS_TAKEN,
    }


def job_id_of(conn: sqlite3.Connection, ref: str) -> str:
    """The automation job `ref` names, by id or name, removed ones too (their runs keep the name); a
    one-line error listing the jobs otherwise. Read from gateway.db's automation tables, as budgets do."""
    queries = (
        ("SELECT id FROM automation_jobs WHERE id = ? OR name = ? ORDER BY id = ? DESC LIMIT 1", (ref, ref, ref)),
        ("SELECT job_id FROM automation_runs WHERE job_id = ? OR job_name = ? LIMIT 1", (ref, ref)),
        ("SELECT job_id FROM usage_calls WHERE job_id = ? LIMIT 1", (ref,)),
    )
    for sql, args in queries:
        try:
            row = conn.execute(sql, args).fetchone()
        except sqlite3.Error:  # no automations in this gateway.db yet
            continue
        if row is not None:
            return str(row[0])
    try:
        names = [row[0] for row in conn.execute("SELECT name FROM automation_jobs ORDER BY name LIMIT 21")]
    except sqlite3.Error:
        names = []
    listed = ", ".join(names[:20]) + (", …" if len(names) > 20 else "")
    raise NotFoundError(f"no job named {ref!r} (jobs: {listed or 'none yet'})")


@takes(CostParams)
async def usage_cost(usage: UsageBook, _gateway: object, params: CostParams) -> dict[str, Any]:
    if params.days is not None:
        return await usage.aread(lambda c: _openclaw_cost(c, usage, params))
    return await usage.cost(params.session_key)


def _openclaw_cost(conn: Any, usage: UsageBook, params: CostParams) -> dict[str, Any]:
    """OpenClaw's `CostUsageSummary`: per-day and overall tokens and cost, since midnight `days - 1` ago."""
    days = params.days or 30
    since = local_midnight(date.today() - timedelta(days=days - 1))
    agent = None if params.agent_scope == "all" else params.agent_id
    by_day, total = summarize(conn, "day", usage.prices(), since=since, agent_id=agent)

    def wire(t: Totals) -> dict[str, Any]:
        tokens = {"input": t.input, "output": t.output, "cacheRead": t.cached_input, "cacheWrite": t.cache_write}
        return tokens | {
            "totalTokens": t.input + t.output,
            "totalCost": t.cost or 0.0,
            "missingCostEntries": t.unpriced,
        }

    return {"updatedAt": int(time.time() * 1000), "days": days,
            "daily": [{"date": t.key, **wire(t)} for t in by_day], "totals": wire(total)}  # fmt: skip


@takes(CallsParams)
async def usage_calls(usage: UsageBook, _gateway: object, params: CallsParams) -> list[dict[str, Any]]:
    return await usage.aread(
        lambda c: calls_of(c, run_id=params.run_id, session_key=params.session_key, limit=params.limit)
    )


@takes(NoParams)
async def usage_notices(usage: UsageBook, _gateway: object, _params: NoParams) -> list[dict[str, Any]]:
    return await usage.aread(lambda c: notices(c))


@takes(PruneParams)
async def usage_prune(usage: UsageBook, _gateway: object, params: PruneParams) -> dict[str, Any]:
    before = local_midnight(parse_date(params.before))
    deleted = await usage.prune(before)
    return {"deleted": deleted, "before": before}


def usage_methods(usage: UsageBook) -> dict[str, RpcMethod]:
    return table(
        RpcMethod("usage.summary", ADMIN, partial(usage_summary, usage)),
        RpcMethod("usage.cost", READ, partial(usage_cost, usage)),
        RpcMethod("usage.calls", ADMIN, partial(usage_calls, usage)),
        RpcMethod("usage.notices", ADMIN, partial(usage_notices, usage)),
        RpcMethod("usage.prune", ADMIN, partial(usage_prune, usage)),
    )
