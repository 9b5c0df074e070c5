"""The inbox processor: stored messages → access control → `dispatch` → the reply into the outbox.

Messages are taken in the order they were stored and dispatched one by one, so the session
lanes see each conversation's messages in order. A run's outcome and its reply are committed
together (the inbox row `done` and the outbox row in one transaction): after a crash either
both exist or the message is processed again. Unknown senders get a pairing code (no run, no
model call); messages that access control or mention gating drop are marked `ignored`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from claw.channels import inbox, pairing
from claw.channels.adapter import ChannelAdapter
from claw.channels.faults import fault
from claw.channels.inbox import InboxRow
from claw.channels.replies import FAILED_REPLY, NO_REPLY, pairing_reply, queue_reply
from claw.channels.streaming import EditStreamer
from claw.errors import ClawError, GatewayUnavailable

if TYPE_CHECKING:
    from claw.channels.manager import ChannelManager
    from claw.gateway.dispatch_result import DispatchResult
    from claw.gateway.runs import RunOutcome

log = logging.getLogger(__name__)

POLL_SECONDS = 1.0
MAX_CLAIMS = 3
"""A message whose processing was cut short this many times (the gateway died each time) is given up."""


class InboxProcessor:
    def __init__(self, manager: ChannelManager) -> None:
        self.m = manager
        self.waiters: set[asyncio.Task[None]] = set()
        self._tails: dict[str, asyncio.Task[None]] = {}
        """Per conversation, the newest run being followed: replies are queued in the order messages came."""
        self._parked = False
        """True while `run` waits after a look at the inbox that found nothing pending."""

    @property
    def idle(self) -> bool:
        """True while the processor waits with nothing to do: its last look at the inbox found no pending
        message, no message stored since has woken it, and every run it followed has recorded its outcome
        (and queued its reply). A positive sign that nothing more will come of what has been stored."""
        return self._parked and not self.waiters and not self.m.inbox_wake.is_set()

    async def run(self) -> None:
        while not self.m.host.closing:
            self.m.inbox_wake.clear()
            rows = await self.m.db.aread(lambda c: inbox.pending(c, 200))
            for row in rows:
                if self.m.host.closing or not await self._process(row):
                    return
            if not rows:
                self._parked = True
                try:
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(POLL_SECONDS):
                            await self.m.inbox_wake.wait()
                finally:
                    self._parked = False

    async def drain(self, timeout: float) -> None:
        """Wait for the runs being followed to record their outcome (the gateway aborts them at close)."""
        if self.waiters:
            await asyncio.wait(set(self.waiters), timeout=timeout)

    async def _process(self, row: InboxRow) -> bool:
        """Handle one stored message; False when the gateway is shutting down (the row stays pending)."""
        fault("inbox.before_process")
        adapter = self.m.adapter(row.channel, row.account_id)
        if adapter is None:
            await self._finish(row, "failed", f"no {row.channel} account {row.account_id!r} in the config")
            return True
        ctx = row.ctx
        policy = adapter.access
        if policy is not None:
            approved = await self.m.db.aread(
                lambda c: pairing.is_approved(c, row.channel, row.account_id, ctx.sender_id)
            )
            decision = policy.decide(ctx, mentioned=bool(row.meta.get("mentioned")), approved=approved)
            if decision.action == "ignore":
                log.info("%s/%s: ignored a message from %s: %s", row.channel, row.account_id, ctx.sender_id,
                         decision.reason)  # fmt: skip
                await self._finish(row, "ignored", decision.reason)
                return True
            if decision.action == "pair":
                await self._pair(adapter, row)
                return True
            ctx = replace(ctx, command_authorized=decision.authorized)
        claims = await self.m.db.awrite(lambda c: inbox.claim(c, row.id, time.time()))
        if claims > MAX_CLAIMS:
            log.error("%s/%s: message %d given up after %d interrupted attempts", row.channel, row.account_id,
                      row.id, claims - 1)  # fmt: skip
            await self._finish(row, "failed", "interrupted too often", adapter=adapter, reply=FAILED_REPLY)
            return True
        try:
            result = await self.m.host.dispatch(ctx)
        except GatewayUnavailable:
            await self.m.db.awrite(lambda c: inbox.release(c, row.id, time.time()))
            return False
        except ClawError as exc:
            log.error("%s/%s: message %d could not be dispatched: %s", row.channel, row.account_id, row.id, exc)
            await self._finish(row, "failed", exc.message, adapter=adapter, reply=FAILED_REPLY)
            return True
        self._settle(adapter, row, result)
        return True

    def _settle(self, adapter: ChannelAdapter, row: InboxRow, result: DispatchResult) -> None:
        if result.status == "accepted" and result.run_id:
            streamer = None
            if adapter.limits.supports_edits and adapter.streams:
                streamer = EditStreamer(self.m.host, adapter, row.reply_to, result.run_id).start()
            before = self._tails.get(row.conversation)
            task = asyncio.create_task(self._follow(adapter, row, result, streamer, before))
            self._tails[row.conversation] = task
            self.waiters.add(task)
            task.add_done_callback(self.waiters.discard)
            task.add_done_callback(lambda done: self._untail(row.conversation, done))
            return
        reply = result.reply if result.status in ("command", "dropped") else None
        outcome = f"{result.status} {result.run_id}" if result.status == "merged" else result.status
        finish = self._finish(row, "done", outcome, adapter=adapter, reply=reply, session_key=result.session_key)
        task = asyncio.create_task(finish)
        self.waiters.add(task)
        task.add_done_callback(self.waiters.discard)

    def _untail(self, conversation: str, task: asyncio.Task[None]) -> None:
        if self._tails.get(conversation) is task:
            del self._tails[conversation]

    async def _follow(
        self,
        adapter: ChannelAdapter,
        row: InboxRow,
        result: DispatchResult,
        streamer: EditStreamer | None,
        before: asyncio.Task[None] | None,
    ) -> None:
        run_id, key = result.run_id or "", result.session_key
        run = self.m.host.find_run(run_id)
        outcome = await run.wait() if run is not None else None
        placeholder = await streamer.finish() if streamer is not None else None
        if before is not None:  # the previous reply of this conversation is queued first
            await asyncio.wait({before})
        if outcome is None:
            await self._finish(row, "failed", "the run vanished", adapter=adapter, reply=FAILED_REPLY, session_key=key)
            return
        if outcome.status == "aborted" and self.m.host.closing and not (run and run.drop_reason):
            await self.m.db.awrite(lambda c: inbox.release(c, row.id, time.time()))  # the next start runs it again
            return
        if outcome.status == "error":
            log.warning("%s/%s: run %s failed: %s", row.channel, row.account_id, run_id, outcome.error)
        await self._finish(
            row, "done", outcome.status, adapter=adapter, reply=_reply_text(outcome), run_id=run_id, session_key=key,
            edit=placeholder,
        )  # fmt: skip

    async def _pair(self, adapter: ChannelAdapter, row: InboxRow) -> None:
        now = time.time()
        sender = row.ctx.sender_id

        def write(conn: sqlite3.Connection) -> str:
            request, created = pairing.request_code(conn, row.channel, row.account_id, sender, row.ctx.sender_name, now)
            if created and request is not None:
                queue_reply(conn, adapter, row, pairing_reply(row.channel, request.code), now)
            outcome = "pairing code sent" if created else "pairing pending" if request else "pairing: too many pending"
            inbox.finish(conn, row.id, "ignored", outcome, now)
            return outcome

        outcome = await self.m.db.awrite(write)
        log.info("%s/%s: unknown sender %s: %s (see `claw pairing ls`)", row.channel, row.account_id, sender, outcome)
        self.m.outbox_wake.set()

    async def _finish(
        self,
        row: InboxRow,
        status: str,
        outcome: str,
        *,
        adapter: ChannelAdapter | None = None,
        reply: str | None = None,
        run_id: str | None = None,
        session_key: str | None = None,
        edit: str | None = None,
    ) -> None:
        now = time.time()

        def write(conn: sqlite3.Connection) -> None:
            inbox.finish(conn, row.id, status, outcome, now, run_id=run_id, session_key=session_key)
            if adapter is not None and (reply or edit):
                queue_reply(conn, adapter, row, reply or "", now, run_id=run_id, edit_message_id=edit)

        await self.m.db.awrite(write)
        if reply or edit:
            self.m.outbox_wake.set()


def _reply_text(outcome: RunOutcome) -> str:
    if outcome.status == "ok":
        text = outcome.text.strip()
        return "" if text == NO_REPLY else text
    if outcome.status == "error":
        return FAILED_REPLY
    return ""  # aborted (/stop, or dropped by the queue) or absorbed into another run: nothing to say
