"""Following runs in-process: one run's events in seq order, or a session's from now on.

What `LocalClient.events` / `session_events` serve, and what the network server forwards to its
WebSocket and HTTP clients: the interface layers follow runs through these, not through one another.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from claw.protocol.seen_events import SeenEvents

if TYPE_CHECKING:
    from claw.gateway.event_bus import Subscription
    from claw.gateway.gateway import Gateway
    from claw.gateway.host import RunWatch
    from claw.vocab.run_event import RunEvent


async def run_events(gateway: RunWatch, run_id: str) -> AsyncIterator[RunEvent]:
    """The run's events in seq order, from the first (replayed) to the terminal one; `NotFoundError` for a
    run the gateway does not know."""
    replay, sub = gateway.subscribe_run(run_id)
    async with sub:
        last = 0
        for event in replay:
            last = event.seq
            yield event
            if event.is_terminal:
                return
        async for event in sub:
            if event.seq <= last:
                continue
            last = event.seq
            yield event
            if event.is_terminal:
                return


async def session_events(
    gateway: Gateway, session_key: str, *, others: bool = False, sub: Subscription | None = None
) -> AsyncIterator[RunEvent]:
    """Every event of every run in `session_key` (every other session's with `others`) from now on, each
    once: the runs under way replayed first, then what the bus brings. The subscription is `sub` when the
    caller took it (to close it from elsewhere), else taken when this is first iterated; either way it is
    taken before the replay is read, so nothing falls between."""
    if sub is None:
        sub = gateway.bus.subscribe_session(session_key, others=others)
    replay = [event for run in gateway.active_runs(session_key) for event in list(run.events)]
    seen = SeenEvents()
    async with sub:
        for event in replay:
            if seen.is_new(event):
                yield event
        async for event in sub:
            if seen.is_new(event):
                yield event
