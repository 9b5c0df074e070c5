"""Lanes serialise runs: one at a time per session, at most N at once per global lane.

Both are strict FIFO: a waiter is granted a slot in the order it asked, so two
messages to one session always run in arrival order.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class Lane:
    """A FIFO semaphore. `slot()` waits for a place, in arrival order."""

    def __init__(self, name: str, concurrency: int = 1) -> None:
        self.name = name
        self.concurrency = concurrency
        self.active = 0
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def queued(self) -> int:
        return sum(1 for w in self._waiters if not w.done())

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        await self._acquire()
        try:
            yield
        finally:
            self._release()

    async def _acquire(self) -> None:
        if self.active < self.concurrency and not self._waiters:
            self.active += 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release()  # granted just as we were cancelled: pass the slot on
            elif waiter in self._waiters:  # `_release` may already have skipped and dropped it
                self._waiters.remove(waiter)
            raise

    def _release(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)  # the slot moves to the waiter; `active` is unchanged
                return
        self.active -= 1


class LaneScheduler:
    """Owns the session lanes (created on demand, dropped when idle) and the named global lanes."""

    def __init__(self, global_concurrency: dict[str, int]) -> None:
        self._global = {name: Lane(name, n) for name, n in global_concurrency.items()}
        self._sessions: dict[str, Lane] = {}

    def global_lane(self, name: str) -> Lane:
        return self._global[name]

    def session_busy(self, session_key: str) -> bool:
        lane = self._sessions.get(session_key)
        return lane is not None and (lane.active > 0 or lane.queued > 0)

    @asynccontextmanager
    async def run_slot(self, session_key: str, global_lane: str = "main") -> AsyncIterator[None]:
        """Hold the session's lane, then a place in the global lane, for the duration of a run."""
        lane = self._sessions.setdefault(session_key, Lane(f"session:{session_key}"))
        try:
            async with lane.slot(), self._global[global_lane].slot():
                yield
        finally:
            if lane.active == 0 and not lane.queued:
                self._sessions.pop(session_key, None)
