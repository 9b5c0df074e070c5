"""RPC methods `automations.list|get|add|update|remove|run|runs`: the one API the CLI, the console and
WebSocket clients use. Parameters are camelCase; jobs and runs come back in their wire form."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from claw.automations.job import Job
from claw.automations.timezones import iso, local_text, utc_text
from claw.errors import UsageError
from claw.gateway.gateway import Gateway

if TYPE_CHECKING:
    from claw.automations.manager import AutomationManager
    from claw.gateway.capability import Method

MAX_RUNS_LIMIT = 2000
MAX_UPCOMING = 100


def _ref(params: dict[str, Any]) -> str:
    value = params.get("id")
    if not isinstance(value, str) or not value.strip():
        raise UsageError("missing or invalid parameter 'id' (an automation id or name)")
    return value.strip()


async def automations_list(manager: AutomationManager, gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    return [job.to_wire() for job in await manager.list()]


async def automations_get(manager: AutomationManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """The job; with `upcoming: n`, also its next n firings (local to its zone, and UTC)."""
    job = await manager.get(_ref(params))
    wire = job.to_wire()
    count = params.get("upcoming")
    if count is not None:
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_UPCOMING:
            raise UsageError(f"invalid parameter 'upcoming' (a whole number from 1 to {MAX_UPCOMING})")
        wire["upcoming"] = [
            {"at": iso(t, job.schedule.tz), "local": local_text(t, job.schedule.tz), "utc": utc_text(t)}
            for t in upcoming(job, count, manager.clock.now())
        ]
    return wire


async def automations_add(manager: AutomationManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Params: one of `cron`/`every`/`at`, `message`, optional `name`, `tz`, `agentId`, `session`, `deliver`,
    `enabled`. Refused (nothing stored) if any of it cannot be honoured."""
    return (await manager.add(params)).to_wire()


async def automations_update(manager: AutomationManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """`id` plus the fields of `automations.add` to change; `enabled` turns a job on or off."""
    return (await manager.update(_ref(params), params)).to_wire()


async def automations_remove(manager: AutomationManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    job = await manager.remove(_ref(params))
    return {"removed": job.id, "name": job.name}


async def automations_run(manager: AutomationManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Run a job now. `wait: true` answers once the run is recorded; otherwise as soon as its agent run
    exists (`runId`, to follow with `agent.wait` or the run's events)."""
    wait = params.get("wait", False)
    if not isinstance(wait, bool):
        raise UsageError("invalid parameter 'wait' (true or false)")
    run = await manager.run_now(_ref(params), wait=wait)
    return run.to_wire()


async def automations_runs(manager: AutomationManager, gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The job's ledger, newest first (`limit`, default 50)."""
    limit = params.get("limit", 50)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RUNS_LIMIT:
        raise UsageError(f"invalid parameter 'limit' (a whole number from 1 to {MAX_RUNS_LIMIT})")
    return [run.to_wire() for run in await manager.runs(_ref(params), limit)]


def upcoming(job: Job, count: int, now: float) -> list[float]:
    """The next `count` firings: the stored next run (which may carry an error backoff), then the schedule's.
    For a disabled job, those it would have if it were enabled now."""
    if not job.enabled or job.next_run_at is None:
        return job.schedule.upcoming(now, count)
    return [job.next_run_at, *job.schedule.upcoming(job.next_run_at, count - 1)]


def automation_methods(manager: AutomationManager) -> dict[str, Method]:
    """These methods by wire name, bound to `manager`."""
    return {
        "automations.list": partial(automations_list, manager),
        "automations.get": partial(automations_get, manager),
        "automations.add": partial(automations_add, manager),
        "automations.update": partial(automations_update, manager),
        "automations.remove": partial(automations_remove, manager),
        "automations.run": partial(automations_run, manager),
        "automations.runs": partial(automations_runs, manager),
    }
