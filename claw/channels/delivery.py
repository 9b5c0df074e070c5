"""The delivery worker: sends queued outbox rows, part by part, with rate limits, backoff and dead letters.

For each part it commits the attempt (`sending`) first, then calls the platform, then records
the part as sent; a crash in between is sorted out by `outbox.recover` at the next start
(resent only where that is harmless). Conversations are served concurrently (up to
`channels.outbox.concurrency`), each conversation's replies strictly one after another, and
every channel account has its own send-rate limit. A failed part is retried after an
exponential backoff with jitter (at least the platform's `Retry-After`), up to `maxAttempts`;
a permanent error or the last attempt makes the row `dead` (`claw outbox retry` revives it).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import sqlite3
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from claw.channels import outbox
from claw.channels.adapter import ChannelAdapter, SendError
from claw.channels.faults import fault
from claw.channels.outbox import OutboxRow

if TYPE_CHECKING:
    from claw.channels.manager import ChannelManager
    from claw.settings.channels import OutboxSettings

log = logging.getLogger(__name__)

IDLE_POLL_SECONDS = 1.0
MAX_RETRY_AFTER = 86_400.0


def backoff(attempt: int, settings: OutboxSettings, retry_after: float | None = None) -> float:
    """Seconds before attempt `attempt + 1`: base·2^(attempt−1), capped, with jitter over its upper half;
    never less than the platform's `Retry-After`."""
    ceiling = min(settings.max_delay_seconds, settings.base_delay_seconds * 2 ** (attempt - 1))
    delay = random.uniform(ceiling / 2, ceiling)
    if retry_after is not None:
        delay = max(delay, min(retry_after, MAX_RETRY_AFTER))
    return delay


class RateLimiter:
    """At most `rate` sends per second (0: unlimited), spaced evenly."""

    def __init__(self, rate: float) -> None:
        self._interval = 1.0 / rate if rate > 0 else 0.0
        self._next = 0.0

    async def acquire(self) -> None:
        if not self._interval:
            return
        now = time.monotonic()
        slot = max(now, self._next)
        self._next = slot + self._interval
        if slot > now:
            await asyncio.sleep(slot - now)


def resend_safe(adapter: ChannelAdapter | None, row: OutboxRow) -> bool:
    """After a crash mid-send: may this part go out again without risking a duplicate the user sees?"""
    if adapter is None:
        return False
    editing = row.next_part == 0 and row.edit_message_id is not None
    return adapter.limits.idempotent_sends or editing


class DeliveryWorker:
    def __init__(self, manager: ChannelManager) -> None:
        self.m = manager
        self.settings = manager.config.channels.outbox
        self._limiters: dict[tuple[str, str], RateLimiter] = {}
        self._busy: dict[str, asyncio.Task[None]] = {}
        self._stopping = False
        self._parked = False
        """True while `_sleep` waits with no send in flight and no queued row, due now or later."""

    @property
    def idle(self) -> bool:
        """True while the worker waits with nothing to do: no send in flight, no queued reply due now or
        later (sent and dead rows are done with), and no wake-up (a new reply, `outbox retry`, a finished
        send) since it last looked. A positive sign that no more sends will come of what is in the outbox."""
        return self._parked and not self.m.outbox_wake.is_set()

    async def recover(self) -> None:
        requeued, unknown = await self.m.db.awrite(
            lambda c: outbox.recover(c, lambda r: resend_safe(self.m.adapter(r.channel, r.account_id), r), time.time())
        )
        if requeued or unknown:
            log.warning("outbox: %d interrupted send(s) resumed, %d marked unknown_after_send "
                        "(see `claw outbox ls`; `claw outbox retry ID` sends again)", requeued, unknown)  # fmt: skip

    async def run(self) -> None:
        while not self._stopping:
            self.m.outbox_wake.clear()
            free = self.settings.concurrency - len(self._busy)
            rows = await self.m.db.aread(self._due(free, tuple(self._busy))) if free > 0 else []
            for row in rows:
                task = asyncio.create_task(self._deliver(row), name=f"outbox:{row.id}")
                self._busy[row.conversation] = task
                task.add_done_callback(functools.partial(self._done, row.conversation))
            if not rows or len(self._busy) >= self.settings.concurrency:
                await self._sleep()

    @staticmethod
    def _due(limit: int, skip: tuple[str, ...]) -> Callable[[sqlite3.Connection], list[OutboxRow]]:
        return lambda conn: outbox.due(conn, time.time(), limit, skip)

    def _done(self, conversation: str, _task: object = None) -> None:
        self._busy.pop(conversation, None)
        self.m.outbox_wake.set()  # its next reply (or another conversation's) may go now

    async def stop(self, grace: float) -> None:
        """Let the sends in flight finish (up to `grace` seconds), starting no new part."""
        self._stopping = True
        self.m.outbox_wake.set()
        if self._busy:
            _done, pending = await asyncio.wait(set(self._busy.values()), timeout=grace)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    async def _sleep(self) -> None:
        """Until something is queued or finishes, or the next retry is due (at most IDLE_POLL_SECONDS)."""
        wait = IDLE_POLL_SECONDS
        next_at: float | None = None
        if len(self._busy) < self.settings.concurrency:
            skip = tuple(self._busy)
            next_at = await self.m.db.aread(lambda c: outbox.next_due_at(c, skip))
            if next_at is not None:
                wait = min(wait, max(0.0, next_at - time.time()))
        self._parked = not self._busy and next_at is None
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait):
                    await self.m.outbox_wake.wait()
        finally:
            self._parked = False

    async def _deliver(self, row: OutboxRow) -> None:
        adapter = self.m.adapter(row.channel, row.account_id)
        if adapter is None:
            reason = f"no {row.channel} account {row.account_id!r} in the config"
            await self.m.db.awrite(lambda c: outbox.failed(c, row.id, reason, None, time.time()))
            return
        limiter = self._limiters.setdefault((row.channel, row.account_id), RateLimiter(adapter.limits.rate_per_second))
        for part in range(row.next_part, len(row.parts)):
            if self._stopping:
                return
            await limiter.acquire()
            await self.m.db.awrite(lambda c: outbox.start_attempt(c, row.id, time.time()))
            fault("outbox.after_attempt_before_send")
            ok, message_id = await self._send_part(adapter, row, part)
            if not ok:
                return
            fault("outbox.after_send_before_ack")
            await self.m.db.awrite(functools.partial(_record_part, row_id=row.id, part=part, message_id=message_id))
            if part + 1 < len(row.parts):
                fault("outbox.between_parts")

    async def _send_part(self, adapter: ChannelAdapter, row: OutboxRow, part: int) -> tuple[bool, str | None]:
        """(True, the platform's id of the part), or (False, None) when it failed (the row has been updated)."""
        try:
            async with asyncio.timeout(self.settings.send_timeout_seconds):
                if part == 0 and row.edit_message_id is not None:
                    await adapter.update(row.target, row.edit_message_id, row.parts[0], final=True)
                    return True, row.edit_message_id
                sent = await adapter.send(row.target, row.parts[part], idempotency_key=f"claw-{row.id}-{part}")
                return True, sent.message_id
        except SendError as exc:
            error = exc
        except TimeoutError:
            error = SendError(f"no answer within {self.settings.send_timeout_seconds:g} s", maybe_sent=True)
        await self._failed(adapter, row, part, error)
        return False, None

    async def _failed(self, adapter: ChannelAdapter, row: OutboxRow, part: int, exc: SendError) -> None:
        now = time.time()
        where = f"outbox {row.id} ({row.channel}/{row.account_id}) part {part + 1}/{len(row.parts)}"
        if exc.maybe_sent and not resend_safe(adapter, row):
            await self.m.db.awrite(lambda c: outbox.mark_unknown(c, row.id, exc.reason, now))
            log.warning("%s: %s; it may have arrived, so it is not resent (unknown_after_send)", where, exc.reason)
            return
        current = await self.m.db.aread(lambda c: outbox.get(c, row.id))
        attempts = current.attempts + 1
        if exc.permanent or attempts >= self.settings.max_attempts:
            await self.m.db.awrite(lambda c: outbox.failed(c, row.id, exc.reason, None, now))
            log.error("%s: dead after %d attempt(s): %s", where, attempts, exc.reason)
            return
        delay = backoff(attempts, self.settings, exc.retry_after)
        await self.m.db.awrite(lambda c: outbox.failed(c, row.id, exc.reason, now + delay, now))
        log.info("%s: %s; retrying in %.1f s (attempt %d of %d)", where, exc.reason, delay, attempts + 1,
                 self.settings.max_attempts)  # fmt: skip


def _record_part(conn: sqlite3.Connection, *, row_id: int, part: int, message_id: str | None) -> bool:
    return outbox.part_sent(conn, row_id, part, message_id, time.time())
