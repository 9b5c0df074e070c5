"""The run ledger on a real gateway.db: claims, crash recovery, catch-up, backoff, one-shots (a fixed clock)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from claw.automations import ledger, store
from claw.automations.job import Job
from claw.automations.policy import INTERRUPTED
from claw.automations.schedule import Schedule
from claw.automations.schema import MIGRATIONS
from claw.store.db import Database

T0 = 1_800_000_000.0  # a fixed "now"
OWNER = "1:test"


@pytest.fixture
def db(tmp_path: Path) -> Database:
    database = Database(tmp_path / "gateway.db", MIGRATIONS)
    yield database
    database.close()


def add(db: Database, schedule: Schedule, *, next_run_at: float, job_id: str = "job1") -> Job:
    job = Job(
        id=job_id, name=job_id, agent_id="main", schedule=schedule, session_mode="isolated", message="hi",
        delivery="none", enabled=True, created_at=T0 - 3600, updated_at=T0 - 3600, next_run_at=next_run_at,
    )  # fmt: skip
    db.write(lambda c: store.insert_job(c, job))
    return job


def claim(db: Database, now: float, started_at: float = T0 - 86400) -> list[ledger.Claim]:
    return db.write(lambda c: ledger.claim_due(c, now, started_at, OWNER, 100))


def finish(db: Database, run: ledger.JobRun, status: str, now: float) -> None:
    error = None if status == "ok" else "model error: boom"
    db.write(lambda c: ledger.finish_run(c, run, status=status, output="done", error=error, now=now))


def job(db: Database, job_id: str = "job1") -> Job | None:
    return db.read(lambda c: store.get_job(c, job_id))


def runs(db: Database, job_id: str = "job1") -> list[ledger.JobRun]:
    return db.read(lambda c: ledger.list_runs(c, job_id, 100))


EVERY_MINUTE = Schedule("every", "60", "UTC", anchor=T0 - 600)


def test_a_due_slot_is_claimed_once_and_the_next_run_moves_past_it(db: Database) -> None:
    add(db, EVERY_MINUTE, next_run_at=T0)
    first = claim(db, T0 + 0.5)
    assert len(first) == 1 and first[0].run.status == "running" and first[0].run.slot == T0
    assert claim(db, T0 + 0.5) == []  # a second look at the same moment finds nothing to do
    assert job(db).next_run_at == T0 + 60 and job(db).running_run_id == first[0].run.id


def test_kill_after_the_claim_never_runs_the_slot_again_and_the_orphan_is_marked_failed(db: Database) -> None:
    add(db, EVERY_MINUTE, next_run_at=T0)
    (claimed,) = claim(db, T0 + 0.1)
    # ... the process dies here, mid-run. The next start:
    recovered = db.write(lambda c: ledger.recover_orphans(c, T0 + 5, lambda owner: owner == OWNER))
    assert [r.id for r in recovered] == [claimed.run.id]
    (row,) = runs(db)
    assert row.status == "error" and row.error == INTERRUPTED
    after = job(db)
    assert after.running_run_id is None and after.next_run_at > T0 and after.consecutive_errors == 1
    assert claim(db, T0 + 5) == []
    assert len(runs(db)) == 1


def test_a_slot_already_in_the_ledger_is_never_claimed_twice(db: Database) -> None:
    add(db, EVERY_MINUTE, next_run_at=T0)
    (claimed,) = claim(db, T0)
    finish(db, claimed.run, "ok", T0 + 1)
    db.write(lambda c: c.execute("UPDATE automation_jobs SET next_run_at = ?", (T0,)))  # back to a slot that ran
    assert claim(db, T0 + 2) == []
    assert job(db).next_run_at == T0 + 60
    assert len(runs(db)) == 1


def test_missed_slots_run_once_as_a_catch_up_that_says_so(db: Database) -> None:
    add(db, EVERY_MINUTE, next_run_at=T0)
    restart = T0 + 600 + 5  # down for ten minutes
    (claimed,) = claim(db, restart, started_at=restart)
    assert claimed.run.trigger == "catch-up" and claimed.run.missed == 11  # T0, T0+60 … T0+600
    assert job(db).next_run_at == T0 + 660
    assert claim(db, restart) == []


def test_a_slot_due_while_the_previous_run_goes_on_is_recorded_as_skipped(db: Database) -> None:
    add(db, EVERY_MINUTE, next_run_at=T0)
    (first,) = claim(db, T0)
    (second,) = claim(db, T0 + 60)
    assert second.run.status == "skipped" and "still running" in second.run.error
    assert job(db).running_run_id == first.run.id
    assert [r.status for r in runs(db)] == ["skipped", "running"]


def test_errors_back_off_30s_1m_5m_15m_60m_and_a_success_resets(db: Database) -> None:
    add(db, Schedule("every", "10", "UTC", anchor=T0 - 10), next_run_at=T0)
    now = T0
    waits = []
    for _ in range(6):
        (claimed,) = claim(db, now)
        finish(db, claimed.run, "error", now + 1)
        waits.append(job(db).next_run_at - (now + 1))
        now = job(db).next_run_at
    assert [round(w) for w in waits] == [30, 60, 300, 900, 3600, 3600]
    (claimed,) = claim(db, now)
    finish(db, claimed.run, "ok", now + 1)
    assert job(db).consecutive_errors == 0 and job(db).next_run_at - now <= 10


def test_a_one_shot_is_removed_after_success_but_its_history_stays(db: Database) -> None:
    add(db, Schedule("at", f"{T0:.3f}", "UTC"), next_run_at=T0)
    (claimed,) = claim(db, T0 + 1)
    assert job(db).next_run_at is None
    finish(db, claimed.run, "ok", T0 + 2)
    assert job(db) is None
    assert [r.status for r in runs(db)] == ["ok"]


def test_a_failing_one_shot_retries_with_backoff_then_is_disabled(db: Database) -> None:
    add(db, Schedule("at", f"{T0:.3f}", "UTC"), next_run_at=T0)
    now = T0
    triggers = []
    for _ in range(3):
        (claimed,) = claim(db, now)
        triggers.append(claimed.run.trigger)
        finish(db, claimed.run, "error", now + 1)
        current = job(db)
        now = current.next_run_at or now
    assert triggers == ["schedule", "retry", "retry"]
    final = job(db)
    assert final is not None and not final.enabled and final.next_run_at is None and final.last_status == "error"


def test_manual_runs_are_refused_while_one_is_running(db: Database) -> None:
    created = add(db, EVERY_MINUTE, next_run_at=T0 + 30)
    manual = db.write(lambda c: ledger.claim_manual(c, created, T0, OWNER))
    with pytest.raises(Exception, match="already running"):
        db.write(lambda c: ledger.claim_manual(c, created, T0, OWNER))
    finish(db, manual.run, "ok", T0 + 1)
    assert job(db).next_run_at == T0 + 30  # a manual run leaves the schedule alone
    assert replace(manual.run).trigger == "manual"
