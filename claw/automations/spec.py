"""Turning what a client sent (CLI flags, an RPC call, the agent's tool call) into a checked `Job`.

The parameters arrive from outside, so their shape is checked with pydantic; then
every rule is checked here, once, for every entry point: a bad schedule, zone,
interval, time, agent or target is refused with one line and nothing is stored.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from claw.automations.delivery import check_reachable, parse_delivery
from claw.automations.job import Job
from claw.automations.schedule import parse_schedule
from claw.automations.timezones import host_zone_name, zone
from claw.automations.triggers import new_secret
from claw.config import Config
from claw.errors import UsageError
from claw.paths import check_agent_id

if TYPE_CHECKING:
    from claw.channels.platform import Platform

MAX_MESSAGE_CHARS = 20_000
_NAME = re.compile(r"^[\w][\w .:@+-]{0,63}$")


class JobParams(BaseModel):
    """The fields of `automations.add` and `automations.update` (unset = keep / default)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)

    cron: str | None = None
    every: str | None = None
    at: str | None = None
    on: str | None = None
    tz: str | None = None
    name: str | None = None
    message: str | None = None
    agent_id: str | None = None
    session: Literal["isolated", "main", "command"] | None = None
    deliver: str | None = None
    enabled: bool | None = None

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> JobParams:
        fields = {k: v for k, v in raw.items() if not k.startswith("_") and k not in ("id", "ref")}
        try:
            return cls.model_validate(fields)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "parameters"
            detail = "unknown parameter" if err["type"] == "extra_forbidden" else err["msg"]
            raise UsageError(f"invalid automation {where}: {detail}") from None

    @property
    def schedule_given(self) -> bool:
        return any(value is not None for value in (self.cron, self.every, self.at, self.on))


def new_job(params: JobParams, config: Config, now: float, taken: set[str], platforms: Sequence[Platform]) -> Job:
    """A new job from `params`; `taken` holds the names already in use, `platforms` are the channel platforms
    (composition's table) whose adapters judge a delivery target."""
    message = _message(params.message)
    agent_id = _agent(params.agent_id or "main", config)
    tz = _tz(params.tz)
    schedule = parse_schedule(
        cron=params.cron, every=params.every, at=params.at, on=params.on, tz=tz, now=now,
        min_every_seconds=config.automations.min_every_seconds,
    )  # fmt: skip
    job_id = uuid.uuid4().hex[:8]
    name = _name(params.name, taken) if params.name is not None else _default_name(message, taken)
    enabled = True if params.enabled is None else params.enabled
    return Job(
        id=job_id,
        name=name,
        agent_id=agent_id,
        schedule=schedule,
        session_mode=params.session or "isolated",
        message=message,
        delivery=_delivery(params.deliver or "none", config, platforms),
        enabled=enabled,
        created_at=now,
        updated_at=now,
        next_run_at=schedule.next_after(now) if enabled else None,
        secret=new_secret(schedule.expr) if schedule.kind == "event" else None,
    )


def insert_new_job(
    conn: sqlite3.Connection, params: JobParams, config: Config, now: float, platforms: Sequence[Platform]
) -> Job:
    """Check and store a new job in one transaction (`AutomationManager.add`, and the CLI without a gateway)."""
    from claw.automations import store

    job = new_job(params, config, now, {j.name for j in store.list_jobs(conn)}, platforms)
    store.check_trigger_free(conn, job)
    store.insert_job(conn, job)
    return job


def changed_job(
    job: Job, params: JobParams, config: Config, now: float, taken: set[str], platforms: Sequence[Platform]
) -> Job:
    """`job` with the given fields replaced; a new schedule or zone drops the old next run."""
    updated = replace(job, updated_at=now)
    if params.message is not None:
        updated = replace(updated, message=_message(params.message))
    if params.agent_id is not None:
        updated = replace(updated, agent_id=_agent(params.agent_id, config))
    if params.session is not None:
        updated = replace(updated, session_mode=params.session)
    if params.deliver is not None:
        updated = replace(updated, delivery=_delivery(params.deliver, config, platforms))
    if params.name is not None and params.name != job.name:
        updated = replace(updated, name=_name(params.name, taken - {job.name}))
    reschedule = params.schedule_given or params.tz is not None or params.enabled is True
    if params.schedule_given or params.tz is not None:
        tz = _tz(params.tz) if params.tz is not None else job.schedule.tz
        if params.schedule_given:
            schedule = parse_schedule(
                cron=params.cron, every=params.every, at=params.at, on=params.on, tz=tz, now=now,
                min_every_seconds=config.automations.min_every_seconds,
            )  # fmt: skip
        else:
            schedule = replace(job.schedule, tz=tz)
        updated = replace(updated, schedule=schedule, consecutive_errors=0)
        if schedule.kind == "event" and schedule.expr != job.trigger:  # a new trigger: a new key, never the old one
            updated = replace(updated, secret=new_secret(schedule.expr))
    if params.enabled is not None:
        updated = replace(updated, enabled=params.enabled)
    if not updated.enabled or updated.schedule.kind == "event":
        return replace(updated, next_run_at=None)
    if reschedule or updated.next_run_at is None:
        nxt = updated.schedule.next_after(now)
        if nxt is None:
            raise UsageError(f"automation {job.name!r} is a one-shot whose time has passed: give a new --at")
        updated = replace(updated, next_run_at=nxt)
    return updated


def _message(message: str | None) -> str:
    if message is None or not message.strip():
        raise UsageError("the message is empty: pass what the agent should do with --message")
    if len(message) > MAX_MESSAGE_CHARS:
        raise UsageError(f"the message is {len(message)} characters; at most {MAX_MESSAGE_CHARS} are allowed")
    return message


def _agent(agent_id: str, config: Config) -> str:
    check_agent_id(agent_id)
    config.agent(agent_id)
    return agent_id


def _delivery(text: str, config: Config, platforms: Sequence[Platform]) -> str:
    """The target as stored; one that no configured channel account can reach is refused now, not at each run."""
    target = parse_delivery(text)
    check_reachable(target, config, platforms)
    return str(target)


def _tz(tz: str | None) -> str:
    name = tz.strip() if tz else host_zone_name()
    zone(name)
    return name


def _name(name: str, taken: set[str]) -> str:
    cleaned = name.strip()
    if not _NAME.match(cleaned):
        raise UsageError(
            f"invalid name {name!r}: 1-64 letters, digits, spaces or . : @ + - _, starting with a letter or digit"
        )
    if cleaned in taken:
        raise UsageError(f"an automation named {cleaned!r} already exists (see `claw automations ls`)")
    return cleaned


def _default_name(message: str, taken: set[str]) -> str:
    words = re.findall(r"[\w]+", message.lower())[:4]
    base = "-".join(words)[:40].strip("-") or "automation"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name
