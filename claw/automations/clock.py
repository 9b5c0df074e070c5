"""The scheduler's notion of time, injectable: `SystemClock` in the gateway, `ManualClock` in tests.

`wait_until(deadline, wake)` returns when the clock reaches `deadline` or `wake` is
set, whichever comes first; a test advances a `ManualClock` instead of sleeping.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from typing import Any, Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Unix epoch seconds."""
        ...

    async def wait_until(self, deadline: float | None, wake: asyncio.Event) -> None: ...


class SystemClock:
    """Wall-clock time; waits are asyncio timers (no polling)."""

    def now(self) -> float:
        return time.time()

    async def wait_until(self, deadline: float | None, wake: asyncio.Event) -> None:
        timeout = None if deadline is None else max(0.0, deadline - time.time())
        try:
            async with asyncio.timeout(timeout):
                await wake.wait()
        except TimeoutError:
            pass


class ManualClock:
    """Time that moves only when `advance` or `set` is called; waiters whose deadline passes are woken."""

    def __init__(self, start: float) -> None:
        self._now = start
        self._waiters: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def now(self) -> float:
        return self._now

    def set(self, when: float) -> None:
        self._now = when
        while self._waiters and self._waiters[0][0] <= when:
            _deadline, _n, waiter = heapq.heappop(self._waiters)
            if not waiter.done():
                waiter.set_result(None)

    def advance(self, seconds: float) -> None:
        self.set(self._now + seconds)

    async def wait_until(self, deadline: float | None, wake: asyncio.Event) -> None:
        if deadline is not None and deadline <= self._now:
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if deadline is not None:
            heapq.heappush(self._waiters, (deadline, next(self._order), waiter))
        woken = asyncio.ensure_future(wake.wait())
        try:
            either: set[asyncio.Future[Any]] = {waiter, woken}
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            woken.cancel()
            if not waiter.done():
                waiter.cancel()
