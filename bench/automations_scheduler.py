"""The automations scheduler with 10,000 jobs: CPU while idle, and how late jobs fire.

Run from the repo root:  python -m bench.automations_scheduler  [--jobs 10000] [--idle 20] [--firings 200]

A real in-process `Gateway` with its `Scheduler` (the system clock) on a temporary CLAW_HOME,
turns answered by `ScriptedModelServer(instant=True)` (tests/support) on 127.0.0.1.

1. 10,000 jobs (cron in six zones, intervals, one-shots), none due for at least an hour, are
   written to gateway.db; the gateway starts.
2. idle: process CPU time (user + system, the model server thread included) over `--idle`
   seconds of wall time while nothing is due.
3. firings: `--firings` one-shot jobs are added through a second connection, as
   `claw automations add` does from its own process, due from 3 s later on, spread evenly
   over `--spread` seconds (each runs a real turn); then a burst of `--burst` jobs all due
   at the same instant. Timing error = when the scheduler
   claimed and started the slot (the ledger's `started_at`) minus the slot time.

Targets: idle CPU under 1 % of one core; firing error p99 under 100 ms for spread-out jobs,
every one of the burst claimed within 500 ms, no job missed. One warm-up turn runs first (the
first turn of a process builds the model client on the event loop, ~0.3 s here).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.report import Target, finish, machine_line, percentile, spread
from claw.automations import ledger, store
from claw.automations.capability import AutomationsCapability
from claw.automations.job import Job
from claw.automations.schedule import Schedule
from claw.automations.scheduler import Scheduler
from claw.automations.schema import MIGRATIONS
from claw.compose import build_gateway
from claw.config import load_config
from claw.paths import Paths
from claw.store.db import Database
from tests.support.model_server import ScriptedModelServer

ZONES = ("UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Sydney", "America/Los_Angeles")


def make_job(n: int, schedule: Schedule, now: float, next_run_at: float | None) -> Job:
    return Job(
        id=uuid.uuid4().hex[:8], name=f"job-{n}-{uuid.uuid4().hex[:6]}", agent_id="main", schedule=schedule,
        session_mode="isolated", message=f"job {n}", delivery="none", enabled=True, created_at=now,
        updated_at=now, next_run_at=next_run_at,
    )  # fmt: skip


def background_jobs(count: int, now: float, rng: random.Random) -> list[Job]:
    """Jobs whose next run is at least an hour away: what a big, quiet installation looks like."""
    jobs = []
    for n in range(count):
        kind = n % 3
        if kind == 0:
            expr = f"{rng.randrange(60)} {rng.randrange(24)} * * {rng.choice(['*', '1-5', '0,6'])}"
            schedule = Schedule("cron", expr, rng.choice(ZONES))
        elif kind == 1:
            schedule = Schedule("every", str(rng.choice([3600, 7200, 86400])), "UTC", anchor=now)
        else:
            schedule = Schedule("at", f"{now + rng.uniform(86400, 30 * 86400):.3f}", rng.choice(ZONES))
        nxt = schedule.next_after(now + 3600)
        jobs.append(make_job(n, schedule, now, nxt))
    return jobs


async def wait_finished(db: Database, ids: list[str], timeout: float) -> list[ledger.JobRun]:
    """The ledger rows of `ids` once every one has finished (or what there is when `timeout` passes)."""
    deadline = time.monotonic() + timeout
    while True:
        rows = await db.aread(lambda c: [r for job_id in ids for r in ledger.list_runs(c, job_id, 1)])
        if sum(r.status != "running" for r in rows) == len(ids) or time.monotonic() > deadline:
            return rows
        await asyncio.sleep(0.2)


async def bench(args: argparse.Namespace, home: Path) -> int:
    rng = random.Random(7)
    paths = Paths.from_env()
    now = time.time()
    writer = Database(paths.gateway_db, MIGRATIONS)
    started = time.perf_counter()
    jobs = background_jobs(args.jobs, now, rng)
    computed = time.perf_counter() - started
    writer.write(lambda c: [store.insert_job(c, job) for job in jobs])
    print(f"{args.jobs} jobs: next runs computed in {computed * 1000:.0f} ms, stored in one transaction")

    gateway = build_gateway(
        paths, load_config(paths), services=lambda gw: [Scheduler(gw.capability(AutomationsCapability).manager)]
    )
    await gateway.start()
    manager = gateway.capability(AutomationsCapability).manager
    try:
        await asyncio.sleep(2)  # let start-up settle
        cpu0, wall0 = time.process_time(), time.perf_counter()
        await asyncio.sleep(args.idle)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        idle_pct = 100 * cpu / wall
        print(f"idle with {args.jobs} jobs: {cpu * 1000:.1f} ms CPU in {wall:.1f} s = {idle_pct:.3f} % of one core")
        next_due = time.perf_counter()
        for _ in range(100):
            await manager.db.aread(store.next_due)
        print(f"next-due lookup (index): {(time.perf_counter() - next_due) * 10:.3f} ms per call (with a thread hop)")

        # One turn first: the first turn in a process imports and builds the model client on the event loop
        # (~0.3 s here), which would delay whatever the scheduler has to do at that moment.
        warm = make_job(-1, Schedule("every", "86400", "UTC", anchor=now), now, now + 86400)
        writer.write(lambda c: store.insert_job(c, warm))
        await manager.run_now(warm.id, wait=True)

        base = time.time() + 3
        step = args.spread / args.firings
        spread_jobs = [
            make_job(n, Schedule("at", f"{base + n * step:.3f}", "UTC"), now, base + n * step)
            for n in range(args.firings)
        ]
        writer.write(lambda c: [store.insert_job(c, job) for job in spread_jobs])
        runs = await wait_finished(manager.db, [j.id for j in spread_jobs], timeout=120 + args.spread + args.firings)
        spread_errors = [r.started_at - (r.slot or r.started_at) for r in runs]
        print(f"spread: {sum(r.status == 'ok' for r in runs)} of {args.firings} turns ok")
        order = {job.id: n for n, job in enumerate(spread_jobs)}
        late = sorted(runs, key=lambda r: r.slot - r.started_at if r.slot else 0)[:3]
        print(
            "latest: " + ", ".join(f"#{order[r.job_id]} {1000 * (r.started_at - (r.slot or 0)):.0f} ms" for r in late)
        )

        instant = time.time() + 3
        burst_jobs = [make_job(n, Schedule("at", f"{instant:.3f}", "UTC"), now, instant) for n in range(args.burst)]
        writer.write(lambda c: [store.insert_job(c, job) for job in burst_jobs])
        runs = await wait_finished(manager.db, [j.id for j in burst_jobs], timeout=120 + args.burst)
        burst_errors = [r.started_at - (r.slot or r.started_at) for r in runs]
        drained = max((r.finished_at or 0) for r in runs) - instant
        print(f"burst: {sum(r.status == 'ok' for r in runs)} of {args.burst} turns ok, all done {drained:.1f} s later")
    finally:
        await gateway.close()
        writer.close()

    print(spread(f"firing error, {len(spread_errors)} over {args.spread:g} s", spread_errors))
    print(spread(f"firing error, burst of {len(burst_errors)} at once", burst_errors))
    missing = (args.firings - len(spread_errors)) + (args.burst - len(burst_errors))
    if missing:
        print(f"{missing} job(s) did not fire in time")
    targets = [
        Target("automations_idle_cpu_pct_10k", idle_pct, 1.0, "%"),
        Target("automations_firing_error_p99_ms", 1000 * percentile(spread_errors or [9.9], 99), 100.0, "ms"),
        Target("automations_burst_error_max_ms", 1000 * max(burst_errors or [9.9]), 500.0, "ms"),
        Target("automations_missed_firings", float(missing), 0.5, "jobs"),
    ]
    return finish(targets)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--idle", type=float, default=20.0, help="seconds of idle to measure")
    parser.add_argument("--firings", type=int, default=200)
    parser.add_argument("--spread", type=float, default=40.0, help="seconds the firings are spread over")
    parser.add_argument("--burst", type=int, default=200)
    args = parser.parse_args()
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp, ScriptedModelServer(models=("bench",), instant=True) as server:
        home = Path(tmp)
        for name in list(os.environ):
            if name.startswith(("OPENAI_", "CLAW_")):
                del os.environ[name]
        os.environ.update(CLAW_HOME=str(home), OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="bench")
        os.environ.update(CLAW_MODEL="bench", NO_PROXY="127.0.0.1,localhost")
        return asyncio.run(bench(args, home))


if __name__ == "__main__":
    sys.exit(main())
