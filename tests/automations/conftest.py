"""A real in-process gateway with its scheduler, on a temporary CLAW_HOME, under an injected clock."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from claw.automations import ledger
from claw.automations.capability import AutomationsCapability
from claw.automations.clock import ManualClock
from claw.automations.job import JobRun
from claw.automations.manager import AutomationManager
from claw.automations.scheduler import Scheduler
from claw.compose import build_gateway
from claw.config import load_config
from claw.gateway.gateway import Gateway
from claw.paths import Paths
from tests.support.fixtures import ClawEnv

CONFIG = """
[automations]
minEverySeconds = 1
pollSeconds = 0.1
webhookRetrySeconds = [0.05, 0.1, 0.2]
webhookTimeoutSeconds = 5
"""


def wall(text: str, tz: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(tz)).timestamp()


@dataclass
class Running:
    """A started gateway, its scheduler and automation manager, and the clock they share."""

    gateway: Gateway
    scheduler: Scheduler
    manager: AutomationManager
    clock: ManualClock

    async def runs(self, job_id: str) -> list[JobRun]:
        return await self.manager.db.aread(lambda c: ledger.list_runs(c, job_id, 100))

    async def finished_runs(self, job_id: str, count: int, timeout: float = 60.0) -> list[JobRun]:
        """Wait (in real time) until `job_id` has `count` runs that are no longer running."""
        deadline = time.monotonic() + timeout
        while True:
            rows = [r for r in await self.runs(job_id) if r.status != "running"]
            if len(rows) >= count:
                return rows
            if time.monotonic() > deadline:
                raise AssertionError(f"expected {count} finished runs of {job_id}, got {await self.runs(job_id)}")
            await asyncio.sleep(0.02)

    async def idle(self, timeout: float = 60.0) -> None:
        """Wait until no automation run is in flight."""
        deadline = time.monotonic() + timeout
        while self.manager.in_flight:
            if time.monotonic() > deadline:
                raise AssertionError("automation runs still in flight")
            await asyncio.sleep(0.02)


Start = Callable[..., Awaitable[Running]]


@pytest.fixture
def home(claw_env: ClawEnv) -> Path:
    (claw_env.home / "config.toml").write_text(CONFIG, encoding="utf-8")
    workspace = claw_env.home / "workspace"
    workspace.mkdir(exist_ok=True)
    (workspace / "SOUL.md").write_text("You are Testy.\n", encoding="utf-8")
    return claw_env.home


@pytest.fixture
async def start_gateway(home: Path) -> AsyncIterator[Start]:
    """`await start_gateway(clock)` → a started gateway whose scheduler runs on `clock`; closed after the test."""
    started: list[Gateway] = []

    async def start(clock: ManualClock, **_: Any) -> Running:
        paths = Paths.from_env()
        schedulers: list[Scheduler] = []

        def services(gw: Gateway) -> list[Scheduler]:
            manager = gw.capability(AutomationsCapability).manager
            manager.clock = clock
            schedulers.append(Scheduler(manager))
            return schedulers

        gateway = build_gateway(paths, load_config(paths), services=services)
        await gateway.start()
        started.append(gateway)
        return Running(gateway, schedulers[0], gateway.capability(AutomationsCapability).manager, clock)

    yield start
    for gateway in started:
        await gateway.close()


async def stop(running: Running) -> None:
    await running.gateway.close()
