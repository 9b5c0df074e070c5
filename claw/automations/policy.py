"""What happens after a run: error backoff, one-shot clean-up, and what a restart does to runs in flight.

These rules are pure functions of a job and an outcome, so the ledger can apply
them inside the transaction that records the outcome.
"""

from __future__ import annotations

from dataclasses import replace

from claw.automations.job import Job

BACKOFF_SECONDS = (30.0, 60.0, 300.0, 900.0, 3600.0)
"""Consecutive errors 1, 2, 3, 4, 5+ keep a recurring job at least this long from its next run."""
ONE_SHOT_MAX_ATTEMPTS = 3
INTERRUPTED = "interrupted: the gateway stopped during this run (marked failed on restart)"
SCHEDULED_TRIGGERS = ("schedule", "catch-up", "retry")


def backoff_seconds(consecutive_errors: int) -> float:
    if consecutive_errors <= 0:
        return 0.0
    return BACKOFF_SECONDS[min(consecutive_errors, len(BACKOFF_SECONDS)) - 1]


def after_run(
    job: Job, *, run_id: str, trigger: str, status: str, error: str | None, started_at: float, now: float
) -> Job | None:
    """The job as it should be once run `run_id` ended with `status`; None when it is to be removed."""
    running = None if job.running_run_id == run_id else job.running_run_id
    job = replace(job, running_run_id=running, last_run_at=started_at, last_status=status, last_error=error)
    scheduled = trigger in SCHEDULED_TRIGGERS
    if status == "ok":
        if scheduled and job.schedule.one_shot:
            return None
        return replace(job, consecutive_errors=0)
    errors = job.consecutive_errors + 1
    job = replace(job, consecutive_errors=errors)
    if not scheduled or not job.enabled:
        return job
    if job.schedule.one_shot:
        if errors >= ONE_SHOT_MAX_ATTEMPTS or error == INTERRUPTED:
            return replace(job, enabled=False, next_run_at=None)  # kept, visible in `ls`, runnable by hand
        return replace(job, next_run_at=now + backoff_seconds(errors))
    natural = job.next_run_at if job.next_run_at is not None else job.schedule.next_after(now)
    earliest = now + backoff_seconds(errors)
    return replace(job, next_run_at=max(natural, earliest) if natural is not None else None)
