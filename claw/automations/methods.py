"""RPC methods `automations.list|get|add|update|remove|run|runs`: the one API the CLI, the console and
WebSocket clients use. Parameters are camelCase; jobs and runs come back in their wire form.

Each is bound to the capability's `AutomationManager`, which holds all they need; the gateway that
`Gateway.call_method` hands every method first is not used."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, Field

from claw.api.method import RpcMethod, table
from claw.api.params import Flag, NonEmptyStr, NoParams, Params, takes
from claw.automations.job import Job
from claw.automations.spec import JobParams
from claw.automations.timezones import iso, local_text, utc_text
from claw.automations.triggers import setup_fields
from claw.protocol.scopes import ADMIN, READ

if TYPE_CHECKING:
    from claw.automations.manager import AutomationManager

MAX_RUNS_LIMIT = 2000
MAX_UPCOMING = 100

JobRef = Annotated[NonEmptyStr, AfterValidator(str.strip), Field(description="an automation id or name")]


class JobRefParams(Params):
    id: JobRef


class JobGetParams(JobRefParams):
    upcoming: int | None = Field(None, ge=1, le=MAX_UPCOMING, description=f"a whole number from 1 to {MAX_UPCOMING}")


class JobRunParams(JobRefParams):
    wait: Flag = False


class JobRunsParams(JobRefParams):
    limit: int = Field(50, ge=1, le=MAX_RUNS_LIMIT, description=f"a whole number from 1 to {MAX_RUNS_LIMIT}")


class JobUpdateParams(JobParams):
    """`automations.update`: `id` and the job fields to change. Like `automations.add`, these are
    `JobParams` (shared with the CLI and the agent's tool), which refuse an unknown key rather than
    ignore it: a misspelt field must not leave a schedule silently unchanged."""

    id: JobRef


def _job_fields(params: JobParams) -> dict[str, object]:
    """The job fields as given, for `AutomationManager.add`/`update` (which check them as `JobParams`
    for every entry point: that second pass finds them valid)."""
    return params.model_dump(by_alias=True, exclude_unset=True, exclude={"id"})


@takes(NoParams)
async def automations_list(manager: AutomationManager, _gateway: object, params: NoParams) -> list[dict[str, Any]]:
    return [job.to_wire() for job in await manager.list()]


@takes(JobGetParams)
async def automations_get(manager: AutomationManager, _gateway: object, params: JobGetParams) -> dict[str, Any]:
    """The job; with `upcoming: n`, also its next n firings (local to its zone, and UTC)."""
    job = await manager.get(params.id)
    wire = job.to_wire()
    if params.upcoming is not None:
        wire["upcoming"] = [
            {"at": iso(t, job.schedule.tz), "local": local_text(t, job.schedule.tz), "utc": utc_text(t)}
            for t in upcoming(job, params.upcoming, manager.clock.now())
        ]
    return wire


@takes(JobParams)
async def automations_add(manager: AutomationManager, _gateway: object, params: JobParams) -> dict[str, Any]:
    """Params: one of `cron`/`every`/`at`/`on`, `message`, optional `name`, `tz`, `agentId`, `session`, `deliver`,
    `enabled`. Refused (nothing stored) if any of it cannot be honoured. A `webhook:` trigger's answer carries
    `secret` and `path`: the only time the key its requests are signed with is shown."""
    job = await manager.add(_job_fields(params))
    return {**job.to_wire(), **setup_fields(job.trigger, job.secret)}


@takes(JobUpdateParams)
async def automations_update(manager: AutomationManager, _gateway: object, params: JobUpdateParams) -> dict[str, Any]:
    """`id` plus the fields of `automations.add` to change; `enabled` turns a job on or off. A new `on` trigger
    gets a new key, shown in this answer as `automations.add` shows it."""
    job = await manager.update(params.id, _job_fields(params))
    return {**job.to_wire(), **(setup_fields(job.trigger, job.secret) if params.on is not None else {})}


@takes(JobRefParams)
async def automations_remove(manager: AutomationManager, _gateway: object, params: JobRefParams) -> dict[str, Any]:
    job = await manager.remove(params.id)
    return {"removed": job.id, "name": job.name}


@takes(JobRunParams)
async def automations_run(manager: AutomationManager, _gateway: object, params: JobRunParams) -> dict[str, Any]:
    """Run a job now. `wait: true` answers once the run is recorded; otherwise as soon as its agent run
    exists (`runId`, to follow with `agent.wait` or the run's events)."""
    run = await manager.run_now(params.id, wait=params.wait)
    return run.to_wire()


@takes(JobRunsParams)
async def automations_runs(manager: AutomationManager, _gateway: object, params: JobRunsParams) -> list[dict[str, Any]]:
    """The job's ledger, newest first (`limit`, default 50)."""
    return [run.to_wire() for run in await manager.runs(params.id, params.limit)]


def upcoming(job: Job, count: int, now: float) -> list[float]:
    """The next `count` firings: the stored next run (which may carry an error backoff), then the schedule's.
    For a disabled job, those it would have if it were enabled now."""
    if not job.enabled or job.next_run_at is None:
        return job.schedule.upcoming(now, count)
    return [job.next_run_at, *job.schedule.upcoming(job.next_run_at, count - 1)]


def automation_methods(manager: AutomationManager) -> dict[str, RpcMethod]:
    """These methods by wire name, bound to `manager`."""
    return table(
        RpcMethod("automations.list", READ, partial(automations_list, manager)),
        RpcMethod("automations.get", READ, partial(automations_get, manager)),
        RpcMethod("automations.add", ADMIN, partial(automations_add, manager)),
        RpcMethod("automations.update", ADMIN, partial(automations_update, manager)),
        RpcMethod("automations.remove", ADMIN, partial(automations_remove, manager)),
        RpcMethod("automations.run", ADMIN, partial(automations_run, manager)),
        RpcMethod("automations.runs", ADMIN, partial(automations_runs, manager)),
    )
