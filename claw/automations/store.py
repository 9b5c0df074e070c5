"""Jobs in gateway.db: add, find, change, remove. Functions take a connection so callers compose transactions."""

from __future__ import annotations

import sqlite3

from claw.automations.job import Job
from claw.errors import NotFoundError, UsageError

_COLUMNS = (
    "id, name, agent_id, schedule_kind, schedule_expr, tz, anchor, session_mode, message, delivery, enabled, "
    "created_at, updated_at, next_run_at, running_run_id, last_run_at, last_status, last_error, consecutive_errors, "
    "trigger_secret"
)


def _values(job: Job) -> tuple[object, ...]:
    s = job.schedule
    return (
        job.id,
        job.name,
        job.agent_id,
        s.kind,
        s.expr,
        s.tz,
        s.anchor,
        job.session_mode,
        job.message,
        job.delivery,
        int(job.enabled),
        job.created_at,
        job.updated_at,
        job.next_run_at,
        job.running_run_id,
        job.last_run_at,
        job.last_status,
        job.last_error,
        job.consecutive_errors,
        job.secret,
    )


def insert_job(conn: sqlite3.Connection, job: Job) -> None:
    placeholders = ", ".join("?" * len(_COLUMNS.split(",")))
    conn.execute(f"INSERT INTO automation_jobs ({_COLUMNS}) VALUES ({placeholders})", _values(job))


def save_job(conn: sqlite3.Connection, job: Job) -> None:
    """Write every field of `job` over the stored row with its id."""
    names = [c.strip() for c in _COLUMNS.split(",")][1:]
    assignments = ", ".join(f"{name} = ?" for name in names)
    conn.execute(f"UPDATE automation_jobs SET {assignments} WHERE id = ?", (*_values(job)[1:], job.id))


def get_job(conn: sqlite3.Connection, job_id: str) -> Job | None:
    row = conn.execute(f"SELECT {_COLUMNS} FROM automation_jobs WHERE id = ?", (job_id,)).fetchone()
    return None if row is None else Job.from_row(row)


def find_job(conn: sqlite3.Connection, ref: str) -> Job:
    """The job whose id, or else whose name, is `ref`; a not-found error pointing at `ls` otherwise."""
    job = get_job(conn, ref)
    if job is None:
        row = conn.execute(f"SELECT {_COLUMNS} FROM automation_jobs WHERE name = ?", (ref,)).fetchone()
        job = None if row is None else Job.from_row(row)
    if job is None:
        raise NotFoundError(unknown_job(conn, ref))
    return job


def unknown_job(conn: sqlite3.Connection, ref: str) -> str:
    """The one-line error for a job reference that names none: the jobs there are."""
    names = [row[0] for row in conn.execute("SELECT name FROM automation_jobs ORDER BY name LIMIT 21")]
    listed = ", ".join(names[:20]) + (", …" if len(names) > 20 else "")
    return f"no job named {ref!r} (jobs: {listed or 'none yet; see `claw automations add --help`'})"


def list_jobs(conn: sqlite3.Connection) -> list[Job]:
    rows = conn.execute(f"SELECT {_COLUMNS} FROM automation_jobs ORDER BY created_at, id").fetchall()
    return [Job.from_row(row) for row in rows]


def delete_job(conn: sqlite3.Connection, job_id: str) -> bool:
    return conn.execute("DELETE FROM automation_jobs WHERE id = ?", (job_id,)).rowcount > 0


def due_jobs(conn: sqlite3.Connection, now: float, limit: int) -> list[Job]:
    rows = conn.execute(
        f"SELECT {_COLUMNS} FROM automation_jobs WHERE enabled = 1 AND next_run_at <= ? ORDER BY next_run_at LIMIT ?",
        (now, limit),
    ).fetchall()
    return [Job.from_row(row) for row in rows]


def next_due(conn: sqlite3.Connection) -> float | None:
    """The earliest `next_run_at` of an enabled job (an index lookup, cheap at any size)."""
    row = conn.execute("SELECT MIN(next_run_at) FROM automation_jobs WHERE enabled = 1").fetchone()
    return row[0]


def find_trigger(conn: sqlite3.Connection, trigger: str) -> Job | None:
    """The job that fires on `trigger` (`webhook:NAME`, `gmail:ADDRESS`), enabled or not."""
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM automation_jobs WHERE schedule_kind = 'event' AND schedule_expr = ?", (trigger,)
    ).fetchone()
    return None if row is None else Job.from_row(row)


def check_trigger_free(conn: sqlite3.Connection, job: Job) -> None:
    """One job a trigger: the request's signature is checked with that job's key."""
    if job.trigger is None:
        return
    holder = find_trigger(conn, job.trigger)
    if holder is not None and holder.id != job.id:
        raise UsageError(f"automation {holder.name!r} already fires on {job.trigger}: edit or remove it first")
