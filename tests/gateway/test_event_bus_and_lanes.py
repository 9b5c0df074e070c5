"""The event bus never blocks a publisher; lanes grant slots in arrival order."""

from __future__ import annotations

import asyncio

import pytest

from claw.gateway.event_bus import EventBus
from claw.gateway.lanes import Lane
from claw.vocab.run_event import RunEvent
from claw.vocab.subscription import SubscriberOverflow


def event(seq: int, run_id: str = "r") -> RunEvent:
    return RunEvent(run_id, seq, "agent:main:main", "assistant", {"delta": str(seq)})


async def test_every_subscriber_gets_every_event_it_accepts() -> None:
    bus = EventBus()
    all_events = bus.subscribe()
    only_b = bus.subscribe(lambda e: e.run_id == "b")
    for i in range(3):
        bus.publish(event(i, "a" if i % 2 else "b"))
    all_events.close()
    only_b.close()
    assert [e.seq for e in [e async for e in all_events]] == [0, 1, 2]
    assert [e.seq for e in [e async for e in only_b]] == [0, 2]
    assert bus.subscriber_count == 0


async def test_a_slow_subscriber_is_dropped_not_waited_for() -> None:
    bus = EventBus()
    slow = bus.subscribe(maxsize=5)
    fast = bus.subscribe()
    for i in range(20):
        bus.publish(event(i))  # never blocks
    assert slow.overflowed and bus.subscriber_count == 1
    received = [await slow.__anext__() for _ in range(5)]
    assert [e.seq for e in received] == [0, 1, 2, 3, 4]
    with pytest.raises(SubscriberOverflow):
        await slow.__anext__()
    fast.close()
    assert len([e async for e in fast]) == 20


async def test_lane_is_fifo_and_respects_concurrency() -> None:
    lane = Lane("test", concurrency=2)
    order: list[int] = []
    running = 0
    peak = 0

    async def job(i: int) -> None:
        nonlocal running, peak
        async with lane.slot():
            order.append(i)
            running += 1
            peak = max(peak, running)
            await asyncio.sleep(0.01)
            running -= 1

    await asyncio.gather(*(job(i) for i in range(10)))
    assert order == list(range(10))
    assert peak == 2
    assert lane.active == 0


async def test_a_cancelled_waiter_does_not_leak_the_slot() -> None:
    lane = Lane("test", concurrency=1)
    async with lane.slot():
        waiter = asyncio.create_task(lane.slot().__aenter__())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
    async with asyncio.timeout(1):
        async with lane.slot():
            assert lane.active == 1
    assert lane.active == 0


async def test_cancelling_many_waiters_at_once_leaves_the_lane_clean() -> None:
    lane = Lane("test", concurrency=1)
    holder_release = asyncio.Event()

    async def hold() -> None:
        async with lane.slot():
            await holder_release.wait()

    async def wait_turn() -> None:
        async with lane.slot():
            pass

    holder = asyncio.create_task(hold())
    await asyncio.sleep(0)
    waiters = [asyncio.create_task(wait_turn()) for _ in range(5)]
    await asyncio.sleep(0)
    holder_release.set()  # the slot passes to waiter 0 …
    for task in waiters:  # … while every waiter is cancelled in the same tick
        task.cancel()
    results = await asyncio.gather(holder, *waiters, return_exceptions=True)
    assert not [r for r in results if isinstance(r, Exception) and not isinstance(r, asyncio.CancelledError)]
    assert lane.active == 0 and lane.queued == 0
