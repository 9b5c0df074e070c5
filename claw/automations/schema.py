"""The automations tables in gateway.db, as numbered migrations (see `claw.store.db`).

Times are Unix epoch seconds (REAL). `automation_runs` is the run ledger: one row per
claimed slot, and the UNIQUE (job_id, slot) key is what makes a slot run at most once
even when the gateway dies between steps. Manual runs have no slot (NULL never collides).
"""

from __future__ import annotations

from claw.store.db import Migration

_JOBS_AND_RUNS = """
CREATE TABLE automation_jobs (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL,
    schedule_kind TEXT NOT NULL CHECK (schedule_kind IN ('cron', 'every', 'at')),
    schedule_expr TEXT NOT NULL,
    tz TEXT NOT NULL,
    anchor REAL NOT NULL,
    session_mode TEXT NOT NULL CHECK (session_mode IN ('isolated', 'main')),
    message TEXT NOT NULL,
    delivery TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    next_run_at REAL,
    running_run_id TEXT,
    last_run_at REAL,
    last_status TEXT,
    last_error TEXT,
    consecutive_errors INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX automation_jobs_due ON automation_jobs (next_run_at) WHERE enabled = 1;
CREATE TABLE automation_runs (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL,
    slot REAL,
    trigger TEXT NOT NULL,
    missed INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('running', 'ok', 'error', 'skipped')),
    agent_run_id TEXT,
    session_key TEXT,
    owner TEXT,
    started_at REAL NOT NULL,
    finished_at REAL,
    error TEXT,
    output TEXT,
    delivery TEXT NOT NULL DEFAULT 'none',
    delivery_status TEXT,
    delivery_error TEXT,
    UNIQUE (job_id, slot)
);
CREATE INDEX automation_runs_job ON automation_runs (job_id, started_at);
CREATE INDEX automation_runs_running ON automation_runs (status) WHERE status = 'running';
"""

# A run keeps its job's name: a removed job's history (a one-shot that succeeded) is still found by name.
_RUN_JOB_NAME = "ALTER TABLE automation_runs ADD COLUMN job_name TEXT;"

MIGRATIONS: tuple[Migration, ...] = (
    Migration("automations", 1, "jobs_and_runs", _JOBS_AND_RUNS),
    Migration("automations", 2, "run_job_name", _RUN_JOB_NAME),
)
