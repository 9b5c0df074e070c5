"""Usage and cost as a capability: the ledger watching the router, budgets guarding it, `/cost`, and
the `usage.*` RPC methods.

Built in `claw.compose` with the gateway as its `UsageHost`; at construction it adds the ledger to
the router's observers and the budget check to its guards, so every model call the gateway makes,
whoever makes it, is recorded and checked. A gateway built without it records nothing.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from claw.gateway.capability import BaseCapability, Command
from claw.usage.budgets import Breach, BudgetGuard, notices
from claw.usage.ledger import UsageLedger
from claw.usage.prices import PriceBook, format_cost, is_local
from claw.usage.report import Totals, day_start, month_start, summarize
from claw.vocab import run_event

if TYPE_CHECKING:
    from claw.gateway.capability import Method
    from claw.gateway.commands import CommandCall
    from claw.providers.metering import CallScope
    from claw.usage.host import UsageHost

T = TypeVar("T")


class UsageCapability(BaseCapability):
    name = "usage"
    method_namespaces = ("usage.",)

    def __init__(self, host: UsageHost) -> None:
        self.host = host
        self._book: tuple[int, PriceBook] | None = None
        self._local: dict[str, bool] = {}
        self.ledger = UsageLedger(host.paths.gateway_db, self.is_local, self.prices)
        self.budgets = BudgetGuard(self.ledger, lambda: host.config.usage, self.prices, on_warning=self._warned)
        host.router.observers.append(self.ledger.record)
        host.router.guards.append(self.budgets.check)

    def _warned(self, scope: CallScope, breach: Breach) -> None:
        """A `warn` limit newly reached: a `budget` event in the run whose call found it, if it is one."""
        run = self.host.find_run(scope.run_id) if scope.run_id else None
        if run is not None:
            data = run_event.budget_warning(breach.budget, breach.limit, breach.period, breach.message())
            self.host.publish_lifecycle(run, data)

    def prices(self) -> PriceBook:
        """The prices in effect: config's `[models.prices]` over the shipped table."""
        configured = self.host.config.model_prices
        if self._book is None or self._book[0] != id(configured):
            self._book = (id(configured), PriceBook(configured))
        return self._book[1]

    def is_local(self, provider: str) -> bool:
        """Whether `provider`'s endpoint, as a call to it resolves it now, is a local server (free)."""
        if provider not in self._local:
            from claw.config import ProviderSettings
            from claw.providers.openai_compat import endpoint

            settings = self.host.config.providers.get(provider, ProviderSettings())
            base_url, _key = endpoint(provider, settings, os.environ)
            if base_url is None and provider == "openai":  # the openai client's own default
                base_url = os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
            self._local[provider] = is_local(provider, base_url)
        return self._local[provider]

    async def aread(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.to_thread(self.ledger.read, fn)

    async def cost(self, session_key: str | None, now: float | None = None) -> dict[str, Any]:
        """Totals for the session (if given), today and this month (every agent), as wire dicts."""
        now = time.time() if now is None else now
        prices = self.prices()

        def read(conn: sqlite3.Connection) -> dict[str, Any]:
            out: dict[str, Any] = {}
            if session_key:
                out["session"] = summarize(conn, None, prices, session_key=session_key)[1].to_wire()
            out["today"] = summarize(conn, None, prices, since=day_start(now))[1].to_wire()
            out["month"] = summarize(conn, None, prices, since=month_start(now))[1].to_wire()
            out["notices"] = notices(conn, month_start(now))
            return out

        return await self.aread(read)

    async def prune(self, before: float) -> int:
        """Delete the rows of calls made before `before`; how many went."""
        await asyncio.to_thread(self.ledger.flush)
        day = time.strftime("%Y-%m-%d", time.localtime(before))

        def delete(conn: sqlite3.Connection) -> int:
            conn.execute("DELETE FROM usage_daily WHERE day < ?", (day,))  # whole days: `before` is a midnight
            return conn.execute("DELETE FROM usage_calls WHERE ts < ?", (before,)).rowcount

        return await self.ledger.db.awrite(delete)

    def commands(self) -> Sequence[Command]:
        return (Command("cost", "tokens and cost: this session, today, this month", self._cost_command),)

    async def _cost_command(self, _gateway: object, call: CommandCall) -> str:
        totals = await self.cost(call.session_key)
        return render_cost(totals)

    def methods(self) -> Mapping[str, Method]:
        from claw.usage.methods import usage_methods

        return usage_methods(self)

    def close(self) -> None:
        self.ledger.close()


def render_cost(totals: Mapping[str, Any]) -> str:
    """`/cost`'s reply: one line per period."""
    labels = {"session": "this session", "today": "today", "month": "this month"}
    lines = []
    for name, label in labels.items():
        wire = totals.get(name)
        if wire is None:
            continue
        t = Totals(calls=wire["calls"], input=wire["inputTokens"], output=wire["outputTokens"])
        cost = format_cost(wire["cost"], wire["unpricedCalls"])
        cached = f", {wire['cachedInputTokens']:,} cached" if wire["cachedInputTokens"] else ""
        lines.append(f"{label:<13} {cost:>10}  {t.calls:,} calls, {t.input:,} in{cached}, {t.output:,} out")
    periods = [totals[name] for name in labels if name in totals]
    if any(w.get("unpricedCalls") for w in periods):
        lines.append('+: some calls have no known price ([models.prices."provider/model"] in config.toml)')
    lines += [str(notice["message"]) for notice in totals.get("notices") or ()]
    return "\n".join(lines)
