"""RPC methods `automations.list|get|add|update|remove|run|runs`: the one API the CLI, the console and
WebSocket clients use. Parameters are camelCase; jobs and runs come back in their wire form."""

from __future__ import annotations

from typing import Any

from claw.automations.extension import manager_for
from claw.automations.job import Job
from claw.automations.timezones import iso, local_text, utc_text
from claw.errors import UsageError
from claw.gateway.gateway import Gateway
from claw.gateway.methods import method

MAX_RUNS_LIMIT = 2000
MAX_UPCOMING = 100


def _ref(params: dict[str, Any]) -> str:
    value = params.get("id")
    if not isinstance(value, str) or not value.strip():
        raise UsageError("missing or invalid parameter 'id' (an automation id or name)")
    return value.strip()


@method("automations.list")
async def automations_list(gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    return [job.to_wire() for job in await manager_for(gw).list()]


@method("automations.get")
async def automations_get(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """The job; with `upcoming: n`, also its next n firings (local to its zone, and UTC)."""
    job = await manager_for(gw).get(_ref(params))
    wire = job.to_wire()
    count = params.get("upcoming")
    if count is not None:
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_UPCOMING:
            raise UsageError(f"invalid parameter 'upcoming' (a whole number from 1 to {MAX_UPCOMING})")
        wire["upcoming"] = [
            {"at": iso(t, job.schedule.tz), "local": local_text(t, job.schedule.tz), "utc": utc_text(t)}
            for t in upcoming(job, count, manager_for(gw).clock.now())
        ]
    return wire


@method("automations.add")
async def automations_add(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Params: one of `cron`/`every`/`at`, `message`, optional `name`, `tz`, `agentId`, `session`, `deliver`,
    `enabled`. Refused (nothing stored) if any of it cannot be honoured."""
    return (await manager_for(gw).add(params)).to_wire()


@method("automations.update")
async def automations_update(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """`id` plus the fields of `automations.add` to change; `enabled` turns a job on or off."""
    return (await manager_for(gw).update(_ref(params), params)).to_wire()


@method("automations.remove")
async def automations_remove(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    job = await manager_for(gw).remove(_ref(params))
    return {"removed": job.id, "name": job.name}


@method("automations.run")
async def automations_run(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Run a job now. `wait: true` answers once the run is recorded; otherwise as soon as its agent run
    exists (`runId`, to follow with `agent.wait` or the run's events)."""
    wait = params.get("wait", False)
    if not isinstance(wait, bool):
        raise UsageError("invalid parameter 'wait' (true or false)")
    run = await manager_for(gw).run_now(_ref(params), wait=wait)
    return run.to_wire()


@method("automations.runs")
async def automations_runs(gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The job's ledger, newest first (`limit`, default 50)."""
    limit = params.get("limit", 50)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RUNS_LIMIT:
        raise UsageError(f"invalid parameter 'limit' (a whole number from 1 to {MAX_RUNS_LIMIT})")
    return [run.to_wire() for run in await manager_for(gw).runs(_ref(params), limit)]


def upcoming(job: Job, count: int, now: float) -> list[float]:
    """The next `count` firings: the stored next run (which may carry an error backoff), then the schedule's.
    For a disabled job, those it would have if it were enabled now."""
    if not job.enabled or job.next_run_at is None:
        return job.schedule.upcoming(now, count)
    return [job.next_run_at, *job.schedule.upcoming(job.next_run_at, count - 1)]
