"""OpenClaw's `cron.*` RPC methods on claw's automations, both ways: a job added with `cron.add` is an
automation (`claw automations ls` shows it), and every automation is a cron job in OpenClaw's shape
(`openclaw cron list` shows it).

    cron job (OpenClaw)                          automation (claw)
    schedule {kind: cron, expr, tz}              cron EXPR, tz
    schedule {kind: every, everyMs}              every <seconds>s
    schedule {kind: at, at: ISO}                 at ISO
    sessionTarget main | isolated                session main | isolated
    payload {kind: agentTurn, message}           message
    delivery {mode: none}                        deliver none
    delivery {mode: announce, channel, to}       deliver <channel>:<to>
    delivery {mode: webhook, to: URL}            deliver webhook:<URL>

What an automation cannot be (a `systemEvent`, command or script payload, an `on-exit` or `stream`
schedule, a `current` or `session:…` target, a `next-heartbeat` wake: claw runs no heartbeats) is refused
by name, nothing stored. Params are OpenClaw's closed objects (`ClosedParams`): an unknown key is refused.
"""

from __future__ import annotations

import hashlib
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, model_validator

from claw.api.method import RpcMethod, table
from claw.api.params import ClosedParams, takes
from claw.automations.timezones import iso
from claw.errors import UsageError
from claw.protocol.scopes import ADMIN, READ

if TYPE_CHECKING:
    from claw.automations.job import Job, JobRun
    from claw.automations.manager import AutomationManager

JsonObject = dict[str, Any]
PAGE_MAX = 200


class JobIdParams(ClosedParams):
    """A job by `id` (or OpenClaw's legacy `jobId`)."""

    id: str | None = Field(None, min_length=1, description="a cron job id")
    job_id: str | None = Field(None, min_length=1, description="a cron job id")

    @model_validator(mode="after")
    def _one_id(self) -> JobIdParams:
        if not (self.id or self.job_id):
            raise ValueError("must have required property 'id'")
        return self

    @property
    def ref(self) -> str:
        return str(self.id or self.job_id)


class CronListParams(ClosedParams):
    session_key: str | None = None
    session_agent_id: str | None = None
    include_disabled: bool | None = None
    limit: int | None = Field(None, ge=1, le=PAGE_MAX)
    offset: int = Field(0, ge=0)
    query: str | None = None
    enabled: Literal["all", "enabled", "disabled"] | None = None
    schedule_kind: str | None = None
    last_run_status: str | None = None
    trigger: str | None = None
    sort_by: str | None = None
    sort_dir: Literal["asc", "desc"] | None = None
    agent_id: str | None = None
    compact: bool | None = None
    include_delivery_previews: bool | None = None


class CronStatusParams(ClosedParams):
    pass


class CronJobFields(ClosedParams):
    """The job fields `cron.add` takes and `cron.update`'s `patch` changes (OpenClaw's names)."""

    name: str | None = Field(None, min_length=1)
    display_name: str | None = None
    agent_id: str | None = None
    session_key: str | None = None
    description: str | None = None
    enabled: bool | None = None
    delete_after_run: bool | None = None
    schedule: JsonObject | None = None
    session_target: str | None = None
    wake_mode: str | None = None
    payload: JsonObject | None = None
    delivery: JsonObject | None = None
    failure_alert: Any = None


class CronAddParams(CronJobFields):
    name: str = Field(min_length=1)
    schedule: JsonObject
    session_target: str
    wake_mode: str
    payload: JsonObject


class CronUpdateParams(JobIdParams):
    patch: CronJobFields
    expected_config_revision: str | None = None


class CronRunParams(JobIdParams):
    mode: Literal["due", "force", "if-enabled"] | None = None
    expected_process_instance_id: str | None = None


class CronRunsParams(ClosedParams):
    agent_id: str | None = None
    scope: Literal["job", "all"] | None = None
    id: str | None = None
    job_id: str | None = None
    run_id: str | None = None
    limit: int = Field(50, ge=1, le=PAGE_MAX)
    offset: int = Field(0, ge=0)
    statuses: list[str] | None = None
    status: str | None = None
    delivery_statuses: list[str] | None = None
    delivery_status: str | None = None
    query: str | None = None
    sort_dir: Literal["asc", "desc"] | None = None


# --- claw's automation → OpenClaw's cron job --------------------------------------------------------


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else round(seconds * 1000)


def cron_job(job: Job) -> JsonObject:
    """An automation as OpenClaw's `CronJob`."""
    schedule = job.schedule
    if schedule.kind == "cron":
        wire_schedule: JsonObject = {"kind": "cron", "expr": schedule.expr, "tz": schedule.tz}
    elif schedule.kind == "every":
        wire_schedule = {"kind": "every", "everyMs": _ms(float(schedule.expr)), "anchorMs": _ms(schedule.anchor)}
    elif schedule.kind == "event":  # OpenClaw's cron has no event triggers: claw's own kind, named as such
        wire_schedule = {"kind": "event", "trigger": schedule.expr}
    else:
        wire_schedule = {"kind": "at", "at": iso(float(schedule.expr), schedule.tz)}
    state: JsonObject = {"consecutiveErrors": job.consecutive_errors}
    for key, value in (("nextRunAtMs", _ms(job.next_run_at)), ("lastRunAtMs", _ms(job.last_run_at)),
                       ("lastError", job.last_error), ("lastRunStatus", _run_status(job.last_status))):  # fmt: skip
        if value is not None:
            state[key] = value
    wire: JsonObject = {
        "id": job.id,
        "name": job.name,
        "agentId": job.agent_id,
        "enabled": job.enabled,
        "createdAtMs": _ms(job.created_at),
        "updatedAtMs": _ms(job.updated_at),
        "schedule": wire_schedule,
        "sessionTarget": job.session_mode,
        "wakeMode": "now",
        "payload": {"kind": "agentTurn", "message": job.message},
        "delivery": _delivery(job.delivery),
        "state": state,
    }
    if job.session_mode == "main":
        wire["sessionKey"] = job.session_key
    return wire | {key: state[key] for key in ("nextRunAtMs", "lastRunAtMs", "lastRunStatus") if key in state}


def _run_status(status: str | None) -> str | None:
    """claw's run outcomes in OpenClaw's three (`ok`, `error`, `skipped`)."""
    if status is None:
        return None
    return {"ok": "ok", "error": "error", "missed": "skipped", "skipped": "skipped"}.get(status, "error")


def _delivery(deliver: str) -> JsonObject:
    if deliver == "none" or not deliver:
        return {"mode": "none"}
    target, _, rest = deliver.partition(":")
    if target == "webhook":
        return {"mode": "webhook", "to": rest}
    return {"mode": "announce", "channel": target, "to": rest}


def cron_run(run: JobRun, name: str | None = None) -> JsonObject:
    """A ledger row as OpenClaw's `CronRunLogEntry`."""
    entry: JsonObject = {"ts": _ms(run.finished_at or run.started_at), "jobId": run.job_id, "action": "finished",
                         "runAtMs": _ms(run.started_at)}  # fmt: skip
    status = _run_status(run.status) if run.finished_at is not None else None
    optional = {"status": status, "error": run.error, "summary": (run.output or "")[:2000] or None,
                "sessionKey": run.session_key, "runId": run.agent_run_id, "jobName": name,
                "durationMs": _ms(run.finished_at - run.started_at) if run.finished_at else None}  # fmt: skip
    return entry | {key: value for key, value in optional.items() if value is not None}


# --- OpenClaw's cron job → claw's automation fields ---------------------------------------------------


def automation_fields(fields: CronJobFields) -> dict[str, object]:
    """`fields` (those given) as `automations.add`/`update` fields; UsageError for what claw cannot run."""
    given = fields.model_fields_set
    out: dict[str, object] = {}
    if "name" in given:
        out["name"] = fields.name
    if "agent_id" in given and fields.agent_id:
        out["agentId"] = fields.agent_id
    if "enabled" in given:
        out["enabled"] = fields.enabled
    for unsupported in ("session_key", "delete_after_run", "display_name", "failure_alert"):
        if getattr(fields, unsupported) not in (None, False):
            raise UsageError(f"{_camel(unsupported)}: claw's automations have no such setting")
    if fields.wake_mode not in (None, "now"):
        raise UsageError('wakeMode: claw runs no heartbeats; only "now" is served')
    if fields.session_target is not None:
        if fields.session_target not in ("main", "isolated"):
            raise UsageError("sessionTarget: claw's automations run in the agent's main session or an isolated one")
        out["session"] = fields.session_target
    if fields.schedule is not None:
        out |= _schedule(fields.schedule)
    if fields.payload is not None:
        out["message"] = _message(fields.payload)
    if fields.delivery is not None:
        out["deliver"] = _deliver(fields.delivery)
    return out


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _schedule(schedule: JsonObject) -> dict[str, object]:
    kind = schedule.get("kind")
    if kind == "cron" and isinstance(schedule.get("expr"), str):
        out: dict[str, object] = {"cron": schedule["expr"]}
        if schedule.get("tz"):
            out["tz"] = schedule["tz"]
        return out
    if kind == "every" and isinstance(schedule.get("everyMs"), int) and schedule["everyMs"] >= 1000:
        return {"every": f"{schedule['everyMs'] // 1000}s"}
    if kind == "at" and isinstance(schedule.get("at"), str):
        return {"at": schedule["at"]}
    raise UsageError("schedule: claw runs {kind: cron, expr}, {kind: every, everyMs >= 1000} or {kind: at, at}")


def _message(payload: JsonObject) -> str:
    if payload.get("kind") != "agentTurn" or not isinstance(payload.get("message"), str):
        raise UsageError('payload: claw\'s automations run agent turns ({kind: "agentTurn", message})')
    return str(payload["message"])


def _deliver(delivery: JsonObject) -> str:
    mode, to, channel = delivery.get("mode"), delivery.get("to"), delivery.get("channel")
    if mode == "none":
        return "none"
    if mode == "webhook" and isinstance(to, str):
        return f"webhook:{to}"
    if mode == "announce" and isinstance(channel, str) and channel != "last" and isinstance(to, str):
        return f"{channel}:{to}"
    raise UsageError("delivery: claw delivers to {mode: none}, {mode: webhook, to} or {mode: announce, channel, to}")


# --- the methods --------------------------------------------------------------------------------------


@takes(CronListParams)
async def cron_list(manager: AutomationManager, _gateway: object, params: CronListParams) -> JsonObject:
    """OpenClaw's page of jobs, soonest first; disabled ones only with `includeDisabled` (or `enabled`)."""
    jobs = await manager.list()
    wanted = params.enabled or ("all" if params.include_disabled else "enabled")
    jobs = [j for j in jobs if wanted == "all" or j.enabled == (wanted == "enabled")]
    if params.agent_id:
        jobs = [j for j in jobs if j.agent_id == params.agent_id]
    if params.query:
        needle = params.query.lower()
        jobs = [j for j in jobs if needle in f"{j.id} {j.name} {j.message}".lower()]
    jobs.sort(key=lambda j: (j.next_run_at is None, j.next_run_at or 0.0), reverse=params.sort_dir == "desc")
    total = len(jobs)
    offset = min(params.offset, total)
    limit = params.limit or min(max(total, 1) if total else 50, PAGE_MAX)
    page = jobs[offset : offset + limit]
    next_offset = offset + len(page)
    rows = [cron_job(j) | {"effectiveAgentId": j.agent_id} for j in page]
    # OpenClaw's CLI pages until the revision changes under it: a digest of every job's id and update time.
    revision = hashlib.sha256(" ".join(f"{j.id}@{j.updated_at}" for j in jobs).encode()).hexdigest()[:16]
    return {"jobs": rows, "snapshotRevision": revision, "total": total, "offset": offset, "limit": limit,
            "hasMore": next_offset < total, "nextOffset": next_offset if next_offset < total else None}  # fmt: skip


@takes(CronStatusParams)
async def cron_status(manager: AutomationManager, _gateway: object, params: CronStatusParams) -> JsonObject:
    jobs = await manager.list()
    upcoming = [j.next_run_at for j in jobs if j.enabled and j.next_run_at is not None]
    return {"enabled": True, "triggersEnabled": False, "storePath": str(manager.paths.gateway_db), "storage": "sqlite",
            "jobs": len(jobs), "nextWakeAtMs": _ms(min(upcoming)) if upcoming else None}  # fmt: skip


@takes(JobIdParams)
async def cron_get(manager: AutomationManager, _gateway: object, params: JobIdParams) -> JsonObject:
    return cron_job(await manager.get(params.ref))


@takes(CronAddParams)
async def cron_add(manager: AutomationManager, _gateway: object, params: CronAddParams) -> JsonObject:
    return cron_job(await manager.add(automation_fields(params)))


@takes(CronUpdateParams)
async def cron_update(manager: AutomationManager, _gateway: object, params: CronUpdateParams) -> JsonObject:
    return cron_job(await manager.update(params.ref, automation_fields(params.patch)))


@takes(JobIdParams)
async def cron_remove(manager: AutomationManager, _gateway: object, params: JobIdParams) -> JsonObject:
    job = await manager.remove(params.ref)
    return {"ok": True, "removed": True, "id": job.id}


@takes(CronRunParams)
async def cron_run_now(manager: AutomationManager, _gateway: object, params: CronRunParams) -> JsonObject:
    """Enqueue a run now, as OpenClaw's (`due`: only when the job is due; `if-enabled`: only when enabled)."""
    job = await manager.get(params.ref)
    if params.mode == "if-enabled" and not job.enabled:
        return {"ok": True, "ran": False, "reason": "disabled"}
    if params.mode == "due" and (job.next_run_at is None or job.next_run_at > manager.clock.now()):
        return {"ok": True, "ran": False, "reason": "not-due"}
    run = await manager.run_now(params.ref, wait=False)
    return {"ok": True, "enqueued": True, "runId": run.agent_run_id or run.id}


@takes(CronRunsParams)
async def cron_runs(manager: AutomationManager, _gateway: object, params: CronRunsParams) -> JsonObject:
    """A job's run history (`id`), or every job's (`scope: all`), newest first, as OpenClaw's page."""
    ref = params.id or params.job_id
    jobs = [await manager.get(ref)] if ref else await manager.list()
    names = {j.id: j.name for j in jobs}
    runs = [r for j in jobs for r in await manager.runs(j.id, params.offset + params.limit)]
    runs.sort(key=lambda r: r.started_at, reverse=params.sort_dir != "asc")
    if params.run_id:
        runs = [r for r in runs if params.run_id in (r.id, r.agent_run_id)]
    page = runs[params.offset : params.offset + params.limit]
    next_offset = params.offset + len(page)
    return {"entries": [cron_run(r, names.get(r.job_id)) for r in page], "total": len(runs),
            "offset": params.offset, "limit": params.limit, "hasMore": next_offset < len(runs),
            "nextOffset": next_offset if next_offset < len(runs) else None}  # fmt: skip


def cron_methods(manager: AutomationManager) -> dict[str, RpcMethod]:
    """These methods by wire name, bound to `manager` (scopes: claw/protocol/scopes.py)."""
    return table(
        RpcMethod("cron.list", READ, partial(cron_list, manager)),
        RpcMethod("cron.status", READ, partial(cron_status, manager)),
        RpcMethod("cron.get", READ, partial(cron_get, manager)),
        RpcMethod("cron.add", ADMIN, partial(cron_add, manager)),
        RpcMethod("cron.update", ADMIN, partial(cron_update, manager)),
        RpcMethod("cron.remove", ADMIN, partial(cron_remove, manager)),
        RpcMethod("cron.run", ADMIN, partial(cron_run_now, manager)),
        RpcMethod("cron.runs", READ, partial(cron_runs, manager)),
    )
