"""Load on one connection is met with back-pressure, not refusals: requests over the in-flight limit wait
their turn, and the gateway's own broadcast events queue apart from them (bounded: a client that lets them
pile up is closed as too slow)."""

from __future__ import annotations

import asyncio

import pytest
from websockets.exceptions import ConnectionClosed

from tests.server.conftest import MakeServed, open_wire


async def test_requests_over_the_in_flight_limit_wait_and_are_all_served(make_served: MakeServed) -> None:
    served = await make_served(max_inflight_requests=2)
    wire = await open_wire(served.url)
    ids = [f"h{n}" for n in range(40)]
    for frame_id in ids:  # all at once: far more than two are in flight
        await wire.send({"type": "req", "id": frame_id, "method": "health", "params": {}})
    replies = [await wire.res(frame_id, timeout=30) for frame_id in ids]
    assert [(r["ok"], r.get("error")) for r in replies] == [(True, None)] * len(ids)
    await wire.close()


async def test_broadcast_events_do_not_take_the_requests_slots(make_served: MakeServed) -> None:
    served = await make_served(max_inflight_requests=1)
    wire = await open_wire(served.url)
    wire.quiet = ("health",)  # the presence events are what this test reads
    [conn] = list(served.server.connections)
    for n in range(200):  # a burst of the gateway's own events, all queued before the client reads any
        conn.post_event("presence", {"presence": [], "n": n})
    reply = await wire.request("health", timeout=30)
    assert reply["ok"], reply
    async with asyncio.timeout(30):
        while sum(1 for e in wire.events if e["event"] == "presence" and "n" in e["payload"]) < 200:
            await wire.recv()
    sent = [e["payload"]["n"] for e in wire.events if e["event"] == "presence" and "n" in e["payload"]]
    assert sent == list(range(200))  # in order, none lost
    await wire.close()


async def test_a_client_that_lets_the_event_queue_fill_is_closed_as_too_slow(make_served: MakeServed) -> None:
    served = await make_served(max_queued_events=5)
    wire = await open_wire(served.url)
    wire.quiet = ()
    [conn] = list(served.server.connections)
    for n in range(50):
        conn.post_event("presence", {"presence": [], "n": n})
    with pytest.raises(ConnectionClosed):
        while True:
            await wire.recv(timeout=30)
    assert wire.ws.close_code == 1013 and "too slow" in (wire.ws.close_reason or "")
