"""`AutomationManager`: the one object behind the RPC methods, the tool and the scheduler of one gateway.

It opens gateway.db on first use (a one-shot `claw automations ls` needs no
scheduler), checks and stores jobs, and runs a job now on request. Every change it
makes wakes the scheduler of this process at once; changes from other processes
(the CLI while a gateway runs) are seen through the database's `data_version`.
"""

from __future__ import annotations

import asyncio
import builtins
import os
import sqlite3
import uuid
import weakref
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from claw.automations import ledger, store
from claw.automations.clock import Clock, SystemClock
from claw.automations.executor import Deliver, Executor
from claw.automations.job import Job, JobRun
from claw.automations.schema import MIGRATIONS
from claw.automations.spec import JobParams, changed_job, insert_new_job
from claw.errors import NotFoundError
from claw.store.db import Database

if TYPE_CHECKING:
    from claw.automations.host import AutomationsHost
    from claw.channels.platform import Platform

_LIVE_OWNERS: set[str] = set()
"""Owner tokens of the managers alive in this process (a run row names the process and manager that runs it)."""


class AutomationManager:
    def __init__(
        self,
        host: AutomationsHost,
        platforms: Sequence[Platform],
        deliver: Deliver | None = None,
        clock: Clock | None = None,
    ) -> None:
        self._host = weakref.ref(host)  # the gateway holds this manager (through its capability): no cycle
        self.deliver = deliver
        self.platforms = platforms
        """The channel platforms (composition's table) whose adapters judge a job's delivery target."""
        self.paths = host.paths
        self.clock: Clock = clock or SystemClock()
        self.owner = f"{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._db: Database | None = None
        self._executor: Executor | None = None
        self._tasks: set[asyncio.Task[JobRun]] = set()
        self.listeners: list[Callable[[], None]] = []
        """Called after every change made through this manager (the scheduler wakes on it)."""
        _LIVE_OWNERS.add(self.owner)

    @property
    def host(self) -> AutomationsHost:
        host = self._host()
        if host is None:
            raise RuntimeError("the gateway of this automation manager is gone")
        return host

    @property
    def db(self) -> Database:
        if self._db is None:
            self._db = Database(self.paths.gateway_db, MIGRATIONS)
            self._executor = None
            _LIVE_OWNERS.add(self.owner)
        return self._db

    @property
    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = Executor(lambda: self.host, self.db, lambda: self.clock.now(), self.deliver)
        return self._executor

    def close(self) -> None:
        """Let go of the database (the gateway is gone, or a one-shot command is done)."""
        _LIVE_OWNERS.discard(self.owner)
        if self._db is not None:
            self._db.close()
            self._db = None

    def is_orphan(self, owner: str | None) -> bool:
        """True when the process or manager that owns a run row is gone."""
        if not owner or ":" not in owner:
            return True
        pid_text = owner.split(":", 1)[0]
        if not pid_text.isdigit():
            return True
        if int(pid_text) == os.getpid():
            return owner not in _LIVE_OWNERS
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False

    def _changed(self) -> None:
        for listener in self.listeners:
            listener()

    # --- jobs ---------------------------------------------------------------------------------

    async def list(self) -> list[Job]:
        return await self.db.aread(store.list_jobs)

    async def get(self, ref: str) -> Job:
        return await self.db.aread(lambda c: store.find_job(c, ref))

    async def add(self, raw: dict[str, object]) -> Job:
        params = JobParams.parse(raw)

        config, now, platforms = self.host.config, self.clock.now(), self.platforms
        job = await self.db.awrite(lambda conn: insert_new_job(conn, params, config, now, platforms))
        self._changed()
        return job

    async def update(self, ref: str, raw: dict[str, object]) -> Job:
        params = JobParams.parse(raw)

        def write(conn: sqlite3.Connection) -> Job:
            job = store.find_job(conn, ref)
            taken = {j.name for j in store.list_jobs(conn)}
            updated = changed_job(job, params, self.host.config, self.clock.now(), taken, self.platforms)
            store.check_trigger_free(conn, updated)
            store.save_job(conn, updated)
            return updated

        job = await self.db.awrite(write)
        self._changed()
        return job

    async def remove(self, ref: str) -> Job:
        def write(conn: sqlite3.Connection) -> Job:
            job = store.find_job(conn, ref)
            store.delete_job(conn, job.id)
            return job

        job = await self.db.awrite(write)
        self._changed()
        return job

    async def runs(self, ref: str, limit: int = 50) -> builtins.list[JobRun]:  # `list` here is the method below
        def read(conn: sqlite3.Connection) -> list[JobRun]:
            try:
                job_id = store.find_job(conn, ref).id
            except NotFoundError:
                removed = ledger.removed_job_id(conn, ref)  # a one-shot that succeeded keeps its history
                if removed is None:
                    raise
                job_id = removed
            return ledger.list_runs(conn, job_id, limit)

        return await self.db.aread(read)

    # --- running ------------------------------------------------------------------------------

    async def run_now(self, ref: str, *, wait: bool) -> JobRun:
        """Start the job now (outside its schedule). With `wait`, return once its outcome is recorded;
        else once its agent run exists (the returned row then carries `agent_run_id` to follow)."""
        job = await self.get(ref)
        claim = await self.db.awrite(lambda c: ledger.claim_manual(c, job, self.clock.now(), self.owner))
        dispatched: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        task = self.start(claim, dispatched)
        if wait:
            return await asyncio.shield(task)
        either: set[asyncio.Future[Any]] = {dispatched, task}
        await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        if task.done():
            return task.result()
        return replace(claim.run, agent_run_id=dispatched.result() or None)  # "": a command, no agent run

    async def trigger_job(self, trigger: str) -> Job | None:
        return await self.db.aread(lambda c: store.find_trigger(c, trigger))

    async def fire(self, job: Job, *, event_key: str, event: str, trigger: str) -> JobRun | None:
        """Run `job` for an event its trigger received (`event`: the request, wrapped as untrusted content);
        None when `event_key` was taken before (a replay or a redelivery: nothing runs). The returned row is
        `running` (its run has started) or `skipped` (the previous run still goes)."""
        now = self.clock.now()
        claim = await self.db.awrite(
            lambda c: ledger.claim_event(c, job, event_key=event_key, event=event, trigger=trigger, now=now,
                                         owner=self.owner)
        )  # fmt: skip
        if claim is None:
            return None
        if claim.run.status == "running":
            self.start(claim)
        self._changed()
        return claim.run

    def start(self, claim: ledger.Claim, dispatched: asyncio.Future[str] | None = None) -> asyncio.Task[JobRun]:
        coro = self.executor.execute(claim, dispatched)
        task = asyncio.create_task(coro, name=f"automation:{claim.job.id}:{claim.run.id}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    @property
    def in_flight(self) -> int:
        return len(self._tasks)

    async def aclose(self, grace: float = 10.0) -> None:
        """Abort the runs in flight, give them `grace` seconds to be recorded, then let go of the database."""
        if self._executor is not None:
            for agent_run_id in list(self._executor.agent_runs.values()):
                self.host.abort(agent_run_id)
        if self._tasks:
            _done, pending = await asyncio.wait(set(self._tasks), timeout=grace)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        self.close()
