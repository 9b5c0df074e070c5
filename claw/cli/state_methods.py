"""Listing methods, and adding an automation, answered straight from the state when no gateway is running.

`claw sessions ls`, `claw skills ls`, `claw usage`, `claw automations ls` and `claw automations add` are each
one gateway method (`sessions.list`, `skills.list`, `usage.summary`, `automations.list`, `automations.add`).
Building an in-process gateway for one of them (every capability, the runner, the model router, their
imports) cost 1.2–1.4 s of CPU to read or write one SQLite table. With no gateway running nothing else holds
the state and no run is going, so the same answer comes from the same code: the capabilities' own methods
handed a `StateHost` (the paths, the config, the workspaces and session stores: all their narrow hosts
ask), the automation store and job checks that `AutomationManager.add` uses, and for `sessions.list` the
gateway's row builder (`claw.api.session_rows.entry_row`) with no active runs. Only what a method uses
is imported. With a gateway running, claw.cli.gateway_call asks it instead.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claw.config import AgentSettings, Config
    from claw.paths import Paths
    from claw.store.db import Database
    from claw.store.sessions import SessionStore

Params = Mapping[str, Any]


class StateHost:
    """What these methods ask of a gateway, without one: `paths` and `config`, an agent's workspace and session
    store (the skills capability's `SkillsHost`), and gateway.db with the tables a reader needs."""

    def __init__(self, paths: Paths, config: Config) -> None:
        self.paths = paths
        self.config = config
        self._stores: dict[str, SessionStore] = {}
        self._windows: dict[tuple[int, str | None], int] = {}

    def workspace(self, agent_id: str) -> Path:
        from claw.workspace import workspace_dir

        return workspace_dir(self.paths, self.config, agent_id)

    def sessions(self, agent_id: str) -> SessionStore:
        from claw.store.sessions import SessionStore

        if agent_id not in self._stores:
            self.config.agent(agent_id)  # an unknown agent: the gateway's ConfigError, naming the configured ones
            self._stores[agent_id] = SessionStore(self.paths.sessions_dir(agent_id))
        return self._stores[agent_id]

    def gateway_db(self) -> Database:
        """gateway.db with the usage and automation tables (a gateway makes them when it starts)."""
        from claw.automations.schema import MIGRATIONS as AUTOMATIONS
        from claw.store.db import Database
        from claw.usage.schema import MIGRATIONS as USAGE

        return Database(self.paths.gateway_db, [*USAGE, *AUTOMATIONS])

    def window(self, settings: AgentSettings, chain: list[str]) -> int:
        """The context window a turn on `chain` budgets with, as an idle gateway's runner says (no server has
        been asked for its window yet: config's, or the table of known models). Asked once per settings and
        model: a listing asks for each of its rows."""
        key = (id(settings), chain[0] if chain else None)
        if key not in self._windows:
            from claw.agent.windows import context_window
            from claw.providers.refs import BUILTIN_PROVIDERS, parse_model_ref

            known = BUILTIN_PROVIDERS | set(self.config.providers)
            ref = parse_model_ref(chain[0], known) if chain else None
            self._windows[key] = context_window(ref, settings, self.config.models)
        return self._windows[key]


def session_rows(host: StateHost, agent_id: str) -> Iterator[dict[str, Any]]:
    """The agent's `sessions.list` rows, newest first, read off the store a page at a time as they are used
    (`claw sessions ls --json` prints the first of 50,000 before the rest are read)."""
    from claw.api.session_rows import entry_row

    for entry in host.sessions(agent_id).iter_entries(shared=False):  # rows show no skills snapshot
        yield entry_row(entry, host.config, host.window, ())


async def _sessions_list(host: StateHost, params: Params) -> dict[str, Any]:
    """`sessions.list` for one agent (`agentId`, what the CLI asks): every session, newest first."""
    from claw.api.session_rows import now_ms

    agent_id = params["agentId"]
    rows = list(session_rows(host, agent_id))
    settings = host.config.agent(agent_id)
    chain = settings.model.chain()
    return {
        "ts": now_ms(),
        "path": str(host.paths.sessions_dir(agent_id) / "sessions.sqlite"),
        "count": len(rows),
        "totalCount": len(rows),
        "limitApplied": None,
        "nextOffset": None,
        "hasMore": False,
        "defaults": {"model": next(iter(chain), None), "contextTokens": host.window(settings, chain)},
        "sessions": rows,
    }


class _Ledger:
    """The usage capability as `usage.summary` uses it: the prices in effect and reads of the ledger."""

    def __init__(self, host: StateHost) -> None:
        from claw.usage.prices import PriceBook

        self._db = host.gateway_db()
        self._book = PriceBook(host.config.model_prices)

    def prices(self) -> Any:
        return self._book

    async def aread(self, fn: Callable[[Any], Any]) -> Any:
        return self._db.read(fn)

    def close(self) -> None:
        self._db.close()


async def _usage_summary(host: StateHost, params: Params) -> Any:
    from claw.usage.methods import usage_summary

    ledger = _Ledger(host)
    try:
        return await usage_summary(ledger, None, dict(params))
    finally:
        ledger.close()


async def _skills_list(host: StateHost, params: Params) -> Any:
    from claw.skills.methods import skills_list

    return await skills_list(host, None, dict(params))


async def _automations_list(host: StateHost, params: Params) -> Any:
    from claw.automations import store

    db = host.gateway_db()
    try:
        return [job.to_wire() for job in db.read(store.list_jobs)]
    finally:
        db.close()


async def _automations_add(host: StateHost, params: Params) -> Any:
    """`AutomationManager.add` without a manager (which needs a gateway to run jobs): the same checks, the
    same names taken, one write. No scheduler runs here to be woken; a gateway started later reads the job."""
    from claw.automations.spec import JobParams, insert_new_job
    from claw.automations.triggers import setup_fields
    from claw.compose import CHANNEL_PLATFORMS

    fields = JobParams.parse(dict(params))
    db = host.gateway_db()
    try:
        job = db.write(lambda conn: insert_new_job(conn, fields, host.config, time.time(), CHANNEL_PLATFORMS))
    finally:
        db.close()
    return {**job.to_wire(), **setup_fields(job.trigger, job.secret)}


METHODS: dict[str, Callable[[StateHost, Params], Coroutine[Any, Any, Any]]] = {
    "sessions.list": _sessions_list,
    "usage.summary": _usage_summary,
    "skills.list": _skills_list,
    "automations.list": _automations_list,
    "automations.add": _automations_add,
}
"""Method → how it is answered here. `usage.summary` and `skills.list` are the capabilities' own methods,
parameters checked as a gateway checks them; `sessions.list` answers what the CLI asks, one agent's whole
list (`agentId` alone), and `automations.list` takes no parameters."""

_PARAMS = {"sessions.list": {"agentId"}, "automations.list": set()}


def answers(method: str, params: Params) -> bool:
    """Whether `method` with these parameters is answered here (else it needs a gateway)."""
    return method in METHODS and (method not in _PARAMS or set(params) == _PARAMS[method])


def host() -> StateHost:
    from claw.cli.common import load

    return StateHost(*load())


def call(method: str, params: Params, *, channel: str = "cli") -> Any:
    """`method`'s answer from the state, as an in-process gateway's `call_method` would give it."""
    return asyncio.run(METHODS[method](host(), {**params, "_channel": channel}))
