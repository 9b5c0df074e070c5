"""What is stored: a `Job` (what to run, when, where the reply goes, how it went) and a `JobRun` (one ledger row)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any, Literal

from claw.automations.describe import describe, schedule_text
from claw.automations.schedule import Schedule
from claw.automations.timezones import iso

SessionMode = Literal["isolated", "main", "command"]
RunStatus = Literal["running", "ok", "error", "skipped"]


@dataclass(frozen=True, slots=True)
class Job:
    """A scheduled agent turn and its state."""

    id: str
    name: str
    agent_id: str
    schedule: Schedule
    session_mode: SessionMode
    message: str
    delivery: str
    enabled: bool
    created_at: float
    updated_at: float
    next_run_at: float | None = None
    running_run_id: str | None = None
    last_run_at: float | None = None
    last_status: str | None = None
    last_error: str | None = None
    consecutive_errors: int = 0
    secret: str | None = None
    """For a `webhook:` trigger: the HMAC key its requests are signed with (never in the wire form)."""

    @property
    def trigger(self) -> str | None:
        """`webhook:NAME` or `gmail:ADDRESS` for a job fired by events; None for a scheduled one."""
        return self.schedule.expr if self.schedule.kind == "event" else None

    @property
    def session_key(self) -> str:
        """The session its turns run in (a `command` job has none; its runs are filed under its cron key)."""
        if self.session_mode == "main":
            return f"agent:{self.agent_id}:main"
        return f"agent:{self.agent_id}:cron:{self.id}"

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> Job:
        return cls(
            id=row["id"],
            name=row["name"],
            agent_id=row["agent_id"],
            schedule=Schedule(row["schedule_kind"], row["schedule_expr"], row["tz"], row["anchor"]),
            session_mode=row["session_mode"],
            message=row["message"],
            delivery=row["delivery"],
            enabled=bool(row["enabled"]),
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            next_run_at=row["next_run_at"],
            running_run_id=row["running_run_id"],
            last_run_at=row["last_run_at"],
            last_status=row["last_status"],
            last_error=row["last_error"],
            consecutive_errors=row["consecutive_errors"],
            secret=row["trigger_secret"],
        )

    def to_wire(self) -> dict[str, Any]:
        tz = self.schedule.tz
        return {
            "id": self.id,
            "name": self.name,
            "agentId": self.agent_id,
            "schedule": {"kind": self.schedule.kind, "expr": self.schedule.expr, "tz": tz},
            "scheduleText": schedule_text(self.schedule),
            "trigger": self.trigger,
            "description": describe(self.schedule),
            "tz": tz,
            "session": self.session_mode,
            "sessionKey": self.session_key,
            "message": self.message,
            "deliver": self.delivery,
            "enabled": self.enabled,
            "createdAt": iso(self.created_at, tz),
            "updatedAt": iso(self.updated_at, tz),
            "nextRunAt": iso(self.next_run_at, tz),
            "nextRunAtMs": None if self.next_run_at is None else round(self.next_run_at * 1000),
            "running": self.running_run_id is not None,
            "lastRunAt": iso(self.last_run_at, tz),
            "lastStatus": self.last_status,
            "lastError": self.last_error,
            "consecutiveErrors": self.consecutive_errors,
        }


@dataclass(frozen=True, slots=True)
class JobRun:
    """One row of the run ledger: a claimed slot (or a manual run) and how it ended."""

    id: str
    job_id: str
    slot: float | None
    trigger: str
    missed: int
    status: RunStatus
    agent_run_id: str | None
    session_key: str | None
    started_at: float
    finished_at: float | None
    error: str | None
    output: str | None
    delivery: str
    delivery_status: str | None
    delivery_error: str | None

    @classmethod
    def from_row(cls, row: sqlite3.Row) -> JobRun:
        return cls(**{name: row[name] for name in cls.__slots__})

    def to_wire(self, summary_chars: int = 200) -> dict[str, Any]:
        output = self.output or ""
        summary = " ".join(output.split())
        if len(summary) > summary_chars:
            summary = summary[: summary_chars - 1] + "…"
        return {
            "id": self.id,
            "jobId": self.job_id,
            "runId": self.agent_run_id,
            "slot": iso(self.slot),
            "trigger": self.trigger,
            "missedSlots": self.missed,
            "status": self.status,
            "startedAt": iso(self.started_at),
            "finishedAt": iso(self.finished_at),
            "error": self.error,
            "summary": summary,
            "output": output,
            "sessionKey": self.session_key,
            "deliver": self.delivery,
            "deliveryStatus": self.delivery_status,
            "deliveryError": self.delivery_error,
        }
