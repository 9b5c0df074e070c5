"""Budgets: daily and monthly token or cost limits per agent and per automation job, from the ledger.

`BudgetGuard.check` is a router guard (`ModelRouter.guards`): before each model request it sums the
ledger for the call's agent and job over the current local day and month (this process's queued
rows flushed first) and compares with `[usage.budgets]`. A limit reached under `stop` refuses the
call with `BudgetExceeded`, one line that names the limit and the key to raise; the run ends with it
as its error before anything is sent to the model. Under `warn` the call goes on, and the first time
each limit is reached in a period a notice is written to `usage_notices` (its primary key makes it
once, across processes too) and logged; `/cost`, `claw usage` and `usage.notices` show it, and the
run whose call found it gets a `budget` event (the console shows it as a notice; an automation's job
sends it to the job's delivery channel).

A job budget may name the job by id or by name; a name is looked up in `automation_jobs`.
Costs use the prices in effect now, like every view.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from claw.errors import ClawError
from claw.providers.metering import CallScope
from claw.settings.usage import Budget, UsageSettings
from claw.usage.ledger import UsageLedger
from claw.usage.prices import PriceBook, format_cost
from claw.usage.report import day_start, month_start, summarize

log = logging.getLogger(__name__)


class BudgetExceeded(ClawError):
    """A `stop` budget's limit is reached: the model call was not made."""


@dataclass(frozen=True, slots=True)
class Breach:
    """One limit reached: which budget (`agent main`, `job nightly`), which limit, spent and allowed."""

    budget: str
    key: str
    limit: str
    period: str
    spent: str
    allowed: str
    action: str

    def message(self) -> str:
        when = "tomorrow" if self.limit.startswith("daily") else "next month"
        verb = "calls are refused until" if self.action == "stop" else "calls go on; the limit resets"
        return (
            f"budget: {self.budget} has used {self.spent} of its {self.allowed} {self.limit} limit; "
            f"{verb} {when} (raise {self.key}.{self.limit})"
        )


class BudgetGuard:
    """Checks each call against the budgets in `settings()`, reading `ledger`."""

    def __init__(
        self,
        ledger: UsageLedger,
        settings: Callable[[], UsageSettings],
        prices: Callable[[], PriceBook],
        now: Callable[[], float] = time.time,
        on_warning: Callable[[CallScope, Breach], None] | None = None,
    ) -> None:
        self._ledger = ledger
        self._settings = settings
        self._prices = prices
        self._now = now
        self._on_warning = on_warning
        """Told of each `warn` notice the one time it is new, with the call that found it (to show it live)."""

    async def check(self, scope: CallScope) -> None:
        """Raise `BudgetExceeded` when a `stop` limit of the call's agent or job is reached."""
        budgets = self._settings().budgets
        if not budgets.agents and not budgets.jobs:
            return
        if scope.agent_id not in budgets.agents and (scope.job_id is None or not budgets.jobs):
            return
        breaches = await asyncio.to_thread(self.breaches, scope)
        for breach in breaches:
            if breach.action == "stop":
                raise BudgetExceeded(breach.message())
        for breach in breaches:
            if await asyncio.to_thread(self._notice, breach) and self._on_warning is not None:
                try:
                    self._on_warning(scope, breach)
                except Exception:  # showing it is a courtesy: the call goes on, the notice is stored
                    log.exception("a budget warning could not be shown")

    def breaches(self, scope: CallScope) -> list[Breach]:
        """Every limit of the call's budgets that its agent or job has reached."""
        budgets = self._settings().budgets
        found: list[Breach] = []
        if scope.agent_id is not None and scope.agent_id in budgets.agents:
            budget = budgets.agents[scope.agent_id]
            key = f"[usage.budgets.agents.{scope.agent_id}]"
            found += self._reached(f"agent {scope.agent_id}", key, budget, agent_id=scope.agent_id)
        if scope.job_id is not None and budgets.jobs:
            name, job_budget = self._job_budget(scope.job_id, budgets.jobs)
            if job_budget is not None:
                found += self._reached(f"job {name}", f"[usage.budgets.jobs.{name}]", job_budget, job_id=scope.job_id)
        return found

    def _reached(
        self, label: str, key: str, budget: Budget, *, agent_id: str | None = None, job_id: str | None = None
    ) -> list[Breach]:
        now, prices = self._now(), self._prices()
        found = []
        for period, start, tokens_limit, cost_limit in (
            ("daily", day_start(now), budget.daily_tokens, budget.daily_cost),
            ("monthly", month_start(now), budget.monthly_tokens, budget.monthly_cost),
        ):
            if tokens_limit is None and cost_limit is None:
                continue
            _, total = self._ledger.read(
                partial(summarize, by=None, prices=prices, since=start, agent_id=agent_id, job_id=job_id)
            )
            stamp = datetime.fromtimestamp(now).strftime("%Y-%m-%d" if period == "daily" else "%Y-%m")
            if tokens_limit is not None and total.tokens >= tokens_limit:
                found.append(Breach(label, key, f"{period}Tokens", stamp, f"{total.tokens:,} tokens",
                                    f"{tokens_limit:,}-token", budget.action))  # fmt: skip
            if cost_limit is not None and (total.cost or 0.0) >= cost_limit:
                found.append(Breach(label, key, f"{period}Cost", stamp, format_cost(total.cost),
                                    format_cost(cost_limit), budget.action))  # fmt: skip
        return found

    def _job_budget(self, job_id: str, jobs: dict[str, Budget]) -> tuple[str, Budget | None]:
        if job_id in jobs:
            return job_id, jobs[job_id]
        try:
            row = self._ledger.db.read(lambda c: c.execute(
                "SELECT name FROM automation_jobs WHERE id = ?", (job_id,)).fetchone())  # fmt: skip
        except (sqlite3.Error, ClawError):  # no automations table in this gateway.db yet
            return job_id, None
        name = row[0] if row else None
        return (name, jobs[name]) if name in jobs else (job_id, None)

    def _notice(self, breach: Breach) -> bool:
        """Write the warning once per budget, limit and period; log it the one time it is new (True then)."""
        text = breach.message()

        def insert(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "INSERT OR IGNORE INTO usage_notices (budget, period, created_at, message) VALUES (?, ?, ?, ?)",
                (f"{breach.budget}:{breach.limit}", breach.period, self._now(), text),
            )
            return cur.rowcount == 1

        if self._ledger.db.write(insert):
            log.warning("%s", text)
            return True
        return False


def notices(conn: sqlite3.Connection, since: float | None = None) -> list[dict[str, object]]:
    """Budget warnings given, oldest first."""
    rows = conn.execute(
        "SELECT budget, period, created_at, message FROM usage_notices WHERE created_at >= ? ORDER BY created_at",
        (since or 0.0,),
    ).fetchall()
    return [{"budget": r[0], "period": r[1], "createdAt": r[2], "message": r[3]} for r in rows]
