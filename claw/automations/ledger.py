"""The run ledger: claiming a slot, recording how a run ended, and cleaning up after a crash.

Every step is one transaction on gateway.db. A scheduled slot is claimed *before*
the run starts: the ledger row (UNIQUE job_id, slot) and the job's advanced
`next_run_at` commit together, so after a kill -9 at any point the slot is either
unclaimed (it runs once, later) or claimed (it never runs again; a row left
"running" is marked failed when the gateway next starts).
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace

from claw.automations.job import Job, JobRun
from claw.automations.policy import INTERRUPTED, after_run
from claw.automations.store import delete_job, due_jobs, get_job, save_job
from claw.errors import ClawError

_RUN_COLUMNS = (
    "id, job_id, slot, trigger, missed, status, agent_run_id, session_key, started_at, finished_at, "
    "error, output, delivery, delivery_status, delivery_error"
)


@dataclass(frozen=True, slots=True)
class Claim:
    """A job and the ledger row just claimed for it; `run.status` is `running` (or `skipped`: nothing to do).
    `event` is what an event trigger received, given to the run as untrusted content."""

    job: Job
    run: JobRun
    event: str | None = None


def new_id() -> str:
    return uuid.uuid4().hex[:12]


def _insert_run(conn: sqlite3.Connection, run: JobRun, owner: str, job_name: str) -> None:
    """`job_name` is kept with the run so its history is found by name after the job is removed."""
    conn.execute(
        f"INSERT INTO automation_runs ({_RUN_COLUMNS}, owner, job_name) VALUES ({', '.join('?' * 17)})",
        (
            run.id, run.job_id, run.slot, run.trigger, run.missed, run.status, run.agent_run_id,
            run.session_key, run.started_at, run.finished_at, run.error, run.output, run.delivery,
            run.delivery_status, run.delivery_error, owner, job_name,
        ),
    )  # fmt: skip


def _new_run(job: Job, *, slot: float | None, trigger: str, missed: int, status: str, now: float) -> JobRun:
    skipped = status == "skipped"
    return JobRun(
        id=new_id(),
        job_id=job.id,
        slot=slot,
        trigger=trigger,
        missed=missed,
        status=status,  # type: ignore[arg-type]
        agent_run_id=None,
        session_key=job.session_key,
        started_at=now,
        finished_at=now if skipped else None,
        error=f"skipped: the previous run ({job.running_run_id}) was still running" if skipped else None,
        output=None,
        delivery=job.delivery,
        delivery_status=None,
        delivery_error=None,
    )


def claim_due(conn: sqlite3.Connection, now: float, started_at: float, owner: str, limit: int) -> list[Claim]:
    """Claim every due slot (up to `limit` jobs): a run row each, the job's next run moved past `now`.

    A slot missed while the gateway was down (due before `started_at`) runs once, as a catch-up
    counting the slots it stands for. A slot that comes due while the job's previous run is still
    going is recorded as skipped."""
    claims = []
    for job in due_jobs(conn, now, limit):
        slot = job.next_run_at
        assert slot is not None
        try:
            following = job.schedule.next_after(now)
        except Exception as exc:  # e.g. zone data gone: say so on the job instead of stopping the scheduler
            error = f"schedule error: {exc}; the job was disabled"
            save_job(conn, replace(job, enabled=False, next_run_at=None, last_status="error", last_error=error))
            continue
        if _slot_taken(conn, job.id, slot):  # e.g. an edit led back to a slot already run: never twice
            save_job(conn, replace(job, next_run_at=following))
            continue
        if job.running_run_id is not None:
            run = _new_run(job, slot=slot, trigger="schedule", missed=0, status="skipped", now=now)
        else:
            catch_up = slot < started_at
            missed = job.schedule.missed_between(slot, now) if catch_up else 1
            retry = job.schedule.one_shot and job.consecutive_errors > 0
            trigger = "catch-up" if catch_up else ("retry" if retry else "schedule")
            run = _new_run(job, slot=slot, trigger=trigger, missed=missed, status="running", now=now)
            job = replace(job, running_run_id=run.id)
        job = replace(job, next_run_at=following)
        _insert_run(conn, run, owner, job.name)
        save_job(conn, job)
        claims.append(Claim(job, run))
    return claims


def _slot_taken(conn: sqlite3.Connection, job_id: str, slot: float) -> bool:
    row = conn.execute("SELECT 1 FROM automation_runs WHERE job_id = ? AND slot = ?", (job_id, slot)).fetchone()
    return row is not None


def claim_manual(conn: sqlite3.Connection, job: Job, now: float, owner: str) -> Claim:
    """A run now, outside the schedule; refused while the job is already running."""
    current = get_job(conn, job.id) or job
    if current.running_run_id is not None:
        raise ClawError(f"automation {job.name!r} is already running (ledger run {current.running_run_id})")
    run = _new_run(current, slot=None, trigger="manual", missed=0, status="running", now=now)
    current = replace(current, running_run_id=run.id)
    _insert_run(conn, run, owner, current.name)
    save_job(conn, current)
    return Claim(current, run)


EVENT_MEMORY_SECONDS = 8 * 86400.0
"""How long an event's key is remembered: past Pub/Sub's longest retention (7 days) and far past a signed
webhook's timestamp tolerance, so a redelivered or replayed event never runs twice."""


def claim_event(
    conn: sqlite3.Connection, job: Job, *, event_key: str, event: str, trigger: str, now: float, owner: str
) -> Claim | None:
    """A run for an event that reached `job`'s trigger; None when that event was already taken (a replay or a
    redelivery). While the job's previous run is still going, the event is recorded as skipped, as a slot is."""
    conn.execute("DELETE FROM automation_events WHERE received_at < ?", (now - EVENT_MEMORY_SECONDS,))
    taken = conn.execute(
        "INSERT OR IGNORE INTO automation_events (job_id, event_key, received_at) VALUES (?, ?, ?)",
        (job.id, event_key, now),
    )
    if taken.rowcount == 0:
        return None
    current = get_job(conn, job.id) or job
    busy = current.running_run_id is not None
    run = _new_run(current, slot=None, trigger=trigger, missed=0, status="skipped" if busy else "running", now=now)
    if not busy:
        current = replace(current, running_run_id=run.id)
    _insert_run(conn, run, owner, current.name)
    save_job(conn, current)
    return Claim(current, run, event)


def set_agent_run(conn: sqlite3.Connection, run_id: str, agent_run_id: str, session_key: str) -> None:
    conn.execute(
        "UPDATE automation_runs SET agent_run_id = ?, session_key = ? WHERE id = ?", (agent_run_id, session_key, run_id)
    )


def finish_run(
    conn: sqlite3.Connection, run: JobRun, *, status: str, output: str | None, error: str | None, now: float,
    delivery_status: str | None = None, keep: int = 2000,
) -> JobRun:  # fmt: skip
    """Record the outcome on the run row and apply it to the job (backoff, one-shot removal)."""
    conn.execute(
        "UPDATE automation_runs SET status = ?, finished_at = ?, output = ?, error = ?, delivery_status = ? "
        "WHERE id = ?",
        (status, now, output, error, delivery_status, run.id),
    )
    job = get_job(conn, run.job_id)
    if job is not None:
        updated = after_run(
            job, run_id=run.id, trigger=run.trigger, status=status, error=error, started_at=run.started_at, now=now
        )
        if updated is None:
            delete_job(conn, job.id)
        else:
            save_job(conn, replace(updated, updated_at=job.updated_at))
    conn.execute(
        "DELETE FROM automation_runs WHERE job_id = ? AND id NOT IN "
        "(SELECT id FROM automation_runs WHERE job_id = ? ORDER BY started_at DESC LIMIT ?)",
        (run.job_id, run.job_id, keep),
    )
    return replace(run, status=status, finished_at=now, output=output, error=error, delivery_status=delivery_status)  # type: ignore[arg-type]


def set_delivery(conn: sqlite3.Connection, run_id: str, status: str, error: str | None) -> None:
    conn.execute(
        "UPDATE automation_runs SET delivery_status = ?, delivery_error = ? WHERE id = ?", (status, error, run_id)
    )


def recover_orphans(conn: sqlite3.Connection, now: float, is_orphan: Callable[[str | None], bool]) -> list[JobRun]:
    """Mark failed every run left `running` by an owner that is gone, and free its job.

    A delivery such an owner left `pending` may or may not have reached its target: it becomes
    `unknown`, and is never resent blindly."""
    rows = conn.execute(
        f"SELECT {_RUN_COLUMNS}, owner FROM automation_runs WHERE status = 'running' OR delivery_status = 'pending'"
    ).fetchall()
    recovered = []
    for row in rows:
        if not is_orphan(row["owner"]):
            continue
        run = JobRun.from_row(row)
        if run.status != "running":
            set_delivery(conn, run.id, "unknown", "the gateway stopped while delivering; it may not have arrived")
            continue
        undelivered = "failed" if run.delivery != "none" else None
        finished = finish_run(
            conn, run, status="error", output=None, error=INTERRUPTED, now=now, delivery_status=undelivered
        )
        recovered.append(finished)
    return recovered


def removed_job_id(conn: sqlite3.Connection, ref: str) -> str | None:
    """The id of a removed job whose runs are still in the ledger, by its id or the name it had."""
    row = conn.execute(
        "SELECT job_id FROM automation_runs WHERE job_id = ? OR job_name = ? ORDER BY started_at DESC LIMIT 1",
        (ref, ref),
    ).fetchone()
    return None if row is None else str(row[0])


def list_runs(conn: sqlite3.Connection, job_id: str, limit: int) -> list[JobRun]:
    rows = conn.execute(
        f"SELECT {_RUN_COLUMNS} FROM automation_runs WHERE job_id = ? ORDER BY started_at DESC, rowid DESC LIMIT ?",
        (job_id, limit),
    ).fetchall()
    return [JobRun.from_row(row) for row in rows]
