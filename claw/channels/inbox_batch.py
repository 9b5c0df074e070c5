"""Group commit for a connection that delivers messages one after another (a gateway WebSocket).

An HTTP platform sends many requests at once, and each waits for its own inbox commit. A WebSocket
delivers its events in order on one connection: committing each before reading the next makes the
commit's latency the connection's throughput, and under load (many turns writing to gateway.db) one
commit can wait a hundred milliseconds. `InboxBatch` takes each message as it is read and commits
everything read since the last commit in one transaction, with the connection's state (a sequence
number) as of the last message in it, so the stored state never runs ahead of the stored messages: a
crash before a commit loses nothing that a resume from the stored state does not replay.

A failed commit is retried with a growing pause, holding its messages; once `max_backlog` messages
wait, `add` waits too, so the connection stops being read rather than messages piling up in memory.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from claw.channels.inbound import Inbound
from claw.errors import ClawError

if TYPE_CHECKING:
    from claw.channels.host import ChannelHost

log = logging.getLogger(__name__)

RETRY_PAUSES = (0.05, 0.2, 1.0, 5.0)


class InboxBatch:
    def __init__(self, host: ChannelHost, channel: str, account_id: str, *, max_backlog: int = 500) -> None:
        self._host, self._channel, self._account_id = host, channel, account_id
        self._max_backlog = max_backlog
        self._messages: list[Inbound] = []
        self._state: dict[str, str] = {}
        self._queued = False  # something (messages or state) waits for the next commit
        self._room = asyncio.Condition()
        self._task: asyncio.Task[None] | None = None

    async def add(self, inbound: Sequence[Inbound], state: Mapping[str, str] | None = None) -> None:
        """Queue `inbound` (may be empty: a state change alone) for the next commit; returns at once unless
        `max_backlog` messages already wait."""
        async with self._room:
            await self._room.wait_for(lambda: len(self._messages) < self._max_backlog)
            self._messages.extend(inbound)
            self._state.update(state or {})
            self._queued = True
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._commit_all(), name=f"inbox-batch:{self._channel}:{self._account_id}")

    async def flush(self) -> None:
        """Wait until everything queued so far is committed."""
        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    async def _commit_all(self) -> None:
        while self._queued:
            async with self._room:
                messages, state = self._messages, self._state
                self._messages, self._state, self._queued = [], {}, False
                self._room.notify_all()
            await self._commit(messages, state)

    async def _commit(self, messages: list[Inbound], state: dict[str, str]) -> None:
        attempt = 0
        while True:
            try:
                await self._host.accept(self._channel, self._account_id, messages, state)
                return
            except ClawError as exc:
                pause = RETRY_PAUSES[min(attempt, len(RETRY_PAUSES) - 1)]
                log.warning("%s %s: storing %d message(s) failed (%s); again in %.2f s",
                            self._channel, self._account_id, len(messages), exc, pause)  # fmt: skip
                attempt += 1
                await asyncio.sleep(pause)
