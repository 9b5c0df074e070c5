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

# Event triggers (`--on webhook:NAME`, `--on gmail:ADDRESS`): a schedule kind `event` whose expression is the
# trigger, the secret that signs its requests, and the events already taken (replay protection). SQLite cannot
# change a CHECK constraint in place, so the jobs table is rebuilt with the same rows.
_EVENT_TRIGGERS = """
CREATE TABLE automation_jobs_new (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL,
    schedule_kind TEXT NOT NULL CHECK (schedule_kind IN ('cron', 'every', 'at', 'event')),
    schedule_expr TEXT NOT NULL,
    tz TEXT NOT NULL,
    anchor REAL NOT NULL,
    session_mode TEXT NOT NULL CHECK (session_mode IN ('isolated', 'main', 'command')),
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
    consecutive_errors INTEGER NOT NULL DEFAULT 0,
    trigger_secret TEXT
);
INSERT INTO automation_jobs_new (id, name, agent_id, schedule_kind, schedule_expr, tz, anchor, session_mode, message,
    delivery, enabled, created_at, updated_at, next_run_at, running_run_id, last_run_at, last_status, last_error,
    consecutive_errors)
SELECT id, name, agent_id, schedule_kind, schedule_expr, tz, anchor, session_mode, message, delivery, enabled,
    created_at, updated_at, next_run_at, running_run_id, last_run_at, last_status, last_error, consecutive_errors
FROM automation_jobs;
DROP TABLE automation_jobs;
ALTER TABLE automation_jobs_new RENAME TO automation_jobs;
CREATE INDEX automation_jobs_due ON automation_jobs (next_run_at) WHERE enabled = 1;
CREATE UNIQUE INDEX automation_jobs_trigger ON automation_jobs (schedule_expr) WHERE schedule_kind = 'event';
CREATE TABLE automation_events (
    job_id TEXT NOT NULL,
    event_key TEXT NOT NULL,
    received_at REAL NOT NULL,
    PRIMARY KEY (job_id, event_key)
);
CREATE INDEX automation_events_age ON automation_events (received_at);
"""

MIGRATIONS: tuple[Migration, ...] = (
    Migration("automations", 1, "jobs_and_runs", _JOBS_AND_RUNS),
    Migration("automations", 2, "run_job_name", _RUN_JOB_NAME),
    Migration("automations", 3, "event_triggers", _EVENT_TRIGGERS),
)
