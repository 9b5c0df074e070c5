"""`ChannelService`: the channels' part of a long-lived gateway (`claw gateway run`, `claw chat`).

Start: settle what a previous process left behind (inbox rows `processing` → `pending`; outbox
rows `sending` → resumed or `unknown_after_send`), start every configured account (pollers,
webhook registration), then the inbox processor and the delivery worker. Stop: the processor
first (runs are being aborted by the gateway; their messages go back to `pending`), the
accounts, then the delivery worker, which lets sends in flight finish.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from claw.channels import inbox
from claw.channels.delivery import DeliveryWorker
from claw.channels.processor import InboxProcessor
from claw.channels.tasks import cancel_and_wait

if TYPE_CHECKING:
    from claw.channels.gateway_host import ChannelsHost
    from claw.channels.manager import ChannelManager

log = logging.getLogger(__name__)

STOP_GRACE_SECONDS = 10.0


class ChannelService:
    name = "channels"

    def __init__(self, manager: ChannelManager) -> None:
        self.manager = manager
        self.processor = InboxProcessor(manager)
        self.delivery = DeliveryWorker(manager)
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def idle(self) -> bool:
        """True while the channels run with nothing left to do: every stored message processed and every
        reply sent or given up, the inbox processor and the delivery worker both waiting. (A poller may be
        fetching; what it stores wakes the processor, which makes this False again.)"""
        return self.processor.idle and self.delivery.idle

    async def start(self, gateway: ChannelsHost) -> None:
        m = self.manager
        if not m.adapters:
            return  # no channel configured: nothing to receive, and no account to deliver to
        recovered = await m.db.awrite(lambda c: inbox.recover(c, time.time()))
        if recovered:
            log.info("inbox: %d message(s) interrupted by the last stop will be processed again", recovered)
        await self.delivery.recover()
        for (channel, account_id), adapter in m.adapters.items():
            try:
                await adapter.start(m)
            except Exception as exc:  # one broken account must not keep the gateway (or the others) down
                log.exception("%s/%s did not start", channel, account_id)
                m.health(channel, account_id).error(f"did not start: {exc}")
        m.running = True
        self._tasks = [
            asyncio.create_task(self._guard("inbox processor", self.processor.run)),
            asyncio.create_task(self._guard("delivery worker", self.delivery.run)),
        ]
        if m.adapters:
            log.info("channels: %s", ", ".join(f"{c}/{a}" for c, a in m.adapters))

    async def stop(self) -> None:
        m = self.manager
        m.running = False
        if self._tasks:
            self._tasks[0].cancel()  # the processor: nothing new is dispatched
        await self.processor.drain(STOP_GRACE_SECONDS)
        for adapter in m.adapters.values():
            try:
                await adapter.stop()
            except Exception:
                log.exception("%s/%s did not stop cleanly", adapter.channel, adapter.account_id)
        await self.delivery.stop(STOP_GRACE_SECONDS)
        for task in self._tasks:
            await cancel_and_wait(task)
        self._tasks = []
        for adapter in m.adapters.values():
            m.health(adapter.channel, adapter.account_id).state = "stopped"

    async def _guard(self, what: str, loop: Callable[[], Awaitable[None]]) -> None:
        """Run a loop; a bug in it is logged and the loop restarted after a pause, never left dead."""
        while True:
            try:
                await loop()
                return
            except Exception:
                log.exception("channels: the %s failed; restarting it in 1 s", what)
                await asyncio.sleep(1.0)
