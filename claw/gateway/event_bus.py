"""Fan-out of RunEvents to any number of subscribers, each with its own bounded queue.

A slow subscriber never stalls a run: when its queue is full it is dropped (its
iterator raises `SubscriberOverflow`) and it can re-sync from the transcript, as
websockets' broadcast guide recommends for slow connections.

Two kinds of interest: one run (`subscribe` with a filter on its id, `Gateway.subscribe_run`), or one
session (`subscribe_session`): every event of every run in it, whoever started the run — the console,
another client, a channel message, an automation — so a client that has the session open shows them all
as they happen; with `others`, also the outline (accepted, then how it ended) of every other session's
runs, so it can say that something happened elsewhere (an automation that failed).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from claw.vocab.run_event import TERMINAL_PHASES, Phase, RunEvent, Stream
from claw.vocab.subscription import SubscriberOverflow

log = logging.getLogger(__name__)

DEFAULT_QUEUE_SIZE = 10_000
_CLOSED = object()
OUTLINE_PHASES = frozenset({Phase.ACCEPTED, *TERMINAL_PHASES})
"""The lifecycle phases a session subscriber with `others` gets of the runs of other sessions."""


def session_interest(session_key: str, *, others: bool = False) -> Callable[[RunEvent], bool]:
    """The filter of a session subscription: every event of `session_key`'s runs; with `others`, also
    the `OUTLINE_PHASES` events of every other run."""

    def accept(event: RunEvent) -> bool:
        if event.session_key == session_key:
            return True
        return others and event.stream == Stream.LIFECYCLE and event.data.get("phase") in OUTLINE_PHASES

    return accept


class Subscription:
    """An async iterator over the events that match its filter."""

    def __init__(self, bus: EventBus, accept: Callable[[RunEvent], bool], maxsize: int) -> None:
        self._bus = bus
        self._accept = accept
        self._queue: asyncio.Queue[object] = asyncio.Queue(maxsize + 1)
        self._maxsize = maxsize
        self.overflowed = False
        self.closed = False

    def offer(self, event: RunEvent) -> None:
        if self.closed or not self._accept(event):
            return
        if self._queue.qsize() >= self._maxsize:
            self.overflowed = True
            log.warning("event subscriber overflowed after %d queued events; dropping it", self._maxsize)
            self.close()
            return
        self._queue.put_nowait(event)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._bus._remove(self)
            self._queue.put_nowait(_CLOSED)

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> RunEvent:
        item = await self._queue.get()
        if item is _CLOSED:
            self._queue.put_nowait(_CLOSED)
            if self.overflowed:
                raise SubscriberOverflow("event subscriber fell behind and was dropped")
            raise StopAsyncIteration
        assert isinstance(item, RunEvent)
        return item

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()


class EventBus:
    """Publishes each event to every current subscriber without ever waiting."""

    def __init__(self) -> None:
        self._subscribers: list[Subscription] = []

    def subscribe(
        self, accept: Callable[[RunEvent], bool] | None = None, *, maxsize: int = DEFAULT_QUEUE_SIZE
    ) -> Subscription:
        sub = Subscription(self, accept or (lambda _event: True), maxsize)
        self._subscribers.append(sub)
        return sub

    def subscribe_session(
        self, session_key: str, *, others: bool = False, maxsize: int = DEFAULT_QUEUE_SIZE
    ) -> Subscription:
        """Every event of the runs of `session_key` from now on (`session_interest`)."""
        return self.subscribe(session_interest(session_key, others=others), maxsize=maxsize)

    def publish(self, event: RunEvent) -> None:
        for sub in list(self._subscribers):
            sub.offer(event)

    @property
    def subscriber_count(self) -> int:
        return len(self._subscribers)

    def _remove(self, sub: Subscription) -> None:
        try:
            self._subscribers.remove(sub)
        except ValueError:
            pass
