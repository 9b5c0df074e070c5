"""The scheduler: a gateway service that fires due jobs on time and keeps the ledger honest.

It holds no copy of the jobs. Each wake-up claims what is due (one transaction),
starts those runs, asks the database for the earliest `next_run_at` (an index
lookup) and sleeps until then — or until something changes: a change made in this
process wakes it directly; a change from another process (`claw automations add`
while the gateway runs) shows up as a new `PRAGMA data_version`, polled every
`automations.pollSeconds`. It never sleeps more than a minute, so a suspended machine
or a corrected wall clock cannot leave a job behind. Idle, it costs one cheap query per poll.

On start it marks failed the runs a crash left "running", then runs each job that
missed slots while the gateway was down once, as a catch-up.
"""

from __future__ import annotations

import asyncio
import logging
import os
from functools import partial
from typing import TYPE_CHECKING

from claw.automations import ledger, store
from claw.automations.manager import AutomationManager

if TYPE_CHECKING:
    from claw.automations.host import AutomationsHost

log = logging.getLogger(__name__)

CLAIM_BATCH = 500
ORPHAN_SWEEP_SECONDS = 60.0
MAX_SLEEP_SECONDS = 60.0
_ERROR_PAUSE_SECONDS = 1.0


class Scheduler:
    """`GatewayService` running the automations of one gateway."""

    name = "automations"

    def __init__(self, manager: AutomationManager) -> None:
        self.manager = manager
        self.started_at: float | None = None
        self.recovered: list[str] = []
        """Ledger ids of the runs marked failed at start (left running by a crash)."""
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._sleeping_until: float | None = None
        """While the run loop sleeps after a step: when it wakes at the latest (on the manager's clock)."""
        self._watching = False
        """The poller has read gateway.db's first `data_version`: later changes by other processes wake us."""

    @property
    def idle(self) -> bool:
        """True while the scheduler sleeps with nothing left to start: its last step claimed every due slot,
        its next wake-up is still ahead on its clock, no change made through this process's manager has woken
        it since, and the poller watches for changes by other processes (seen within `pollSeconds`). Runs it
        started may still be going (`AutomationManager.in_flight`)."""
        until = self._sleeping_until
        return until is not None and until > self.manager.clock.now() and not self._wake.is_set() and self._watching

    @property
    def enabled(self) -> bool:
        settings = self.manager.host.config.automations
        return settings.enabled and os.environ.get("CLAW_SKIP_AUTOMATIONS", "") not in ("1", "true", "yes")

    async def start(self, gateway: AutomationsHost) -> None:
        if not self.enabled:
            log.info("automations are turned off; no job will fire in this gateway")
            return
        manager = self.manager
        self.started_at = manager.clock.now()
        recovered = await self._recover()
        self.recovered = [run.id for run in recovered]
        manager.listeners.append(self._wake.set)
        self._tasks = [
            asyncio.create_task(self._run_loop(), name="automations:scheduler"),
            asyncio.create_task(self._poll_loop(), name="automations:poller"),
        ]

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        if self._wake.set in self.manager.listeners:
            self.manager.listeners.remove(self._wake.set)
        await self.manager.aclose()

    def wake(self) -> None:
        self._wake.set()

    async def _recover(self) -> list[ledger.JobRun]:
        now = self.manager.clock.now()
        recovered = await self.manager.db.awrite(lambda c: ledger.recover_orphans(c, now, self.manager.is_orphan))
        for run in recovered:
            log.warning(
                "automation %s: run %s was interrupted by a stop of its gateway; marked failed", run.job_id, run.id
            )
        return recovered

    async def _run_loop(self) -> None:
        while True:
            self._wake.clear()
            try:
                deadline = await self._tick()
            except Exception:
                log.exception("automations: scheduler step failed; trying again shortly")
                await asyncio.sleep(_ERROR_PAUSE_SECONDS)
                continue
            # Never sleep long: asyncio's timers run on the monotonic clock, which a suspended machine or
            # a corrected wall clock leaves behind; looking again every minute keeps firings on wall time.
            limit = self.manager.clock.now() + MAX_SLEEP_SECONDS
            self._sleeping_until = limit if deadline is None else min(deadline, limit)
            try:
                await self.manager.clock.wait_until(self._sleeping_until, self._wake)
            finally:
                self._sleeping_until = None

    async def _tick(self) -> float | None:
        """Start every due run; return when to look again (None: only on a change)."""
        manager = self.manager
        assert self.started_at is not None
        started_at = self.started_at
        while True:
            now = manager.clock.now()
            claims = await manager.db.awrite(
                partial(ledger.claim_due, now=now, started_at=started_at, owner=manager.owner, limit=CLAIM_BATCH)
            )
            for claim in claims:
                if claim.run.status == "running":
                    log.info(
                        "automation %s (%s): %s run %s", claim.job.name, claim.job.id, claim.run.trigger, claim.run.id
                    )
                    manager.start(claim)
                else:
                    log.warning("automation %s: slot skipped, the previous run is still going", claim.job.id)
            if len(claims) < CLAIM_BATCH:
                break
        return await manager.db.aread(store.next_due)

    async def _poll_loop(self) -> None:
        db = self.manager.db
        version = await asyncio.to_thread(db.data_version)
        self._watching = True
        since_sweep = 0.0
        poll = self.manager.host.config.automations.poll_seconds
        while True:
            await asyncio.sleep(poll)
            since_sweep += poll
            try:
                current = await asyncio.to_thread(db.data_version)
                if current != version:
                    version = current
                    self._wake.set()
                if since_sweep >= ORPHAN_SWEEP_SECONDS:  # runs left by a `claw automations run` that was killed
                    since_sweep = 0.0
                    if await self._recover():
                        self._wake.set()
            except Exception:
                log.exception("automations: polling gateway.db failed")
