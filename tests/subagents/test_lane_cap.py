"""The `subagent` lane: nine children, at most eight running at once, the ninth as soon as one ends.

Concurrency is counted from the gateway's own lifecycle events (a child runs from its `start` to its
terminal event), in the order they were published, never from clocks. The children hang until the test
stops them, so every child that the lane lets in is provably running at the same time as the others."""

from __future__ import annotations

import asyncio
from typing import Any

from claw.client.local import LocalClient
from claw.gateway.event_bus import Subscription
from claw.vocab.run_event import RunEvent
from tests.gateway.conftest import collect, write_config
from tests.subagents.conftest import Roles, eventually, settle
from tests.support.fixtures import ClawEnv
from tests.support.model_server import hang, text, tool_calls
from tests.support.waiting import deadline


def most_at_once(events: list[RunEvent], run_ids: set[str]) -> int:
    """The most runs of `run_ids` that were between their `start` and their terminal event at once."""
    running: set[str] = set()
    peak = 0
    for event in events:
        if event.run_id not in run_ids:
            continue
        if event.phase == "start":
            running.add(event.run_id)
            peak = max(peak, len(running))
        elif event.is_terminal:
            running.discard(event.run_id)
    return peak


async def drained(sub: Subscription) -> list[RunEvent]:
    """Every event `sub` received, in publish order (it is closed first, so this ends)."""
    sub.close()
    return [event async for event in sub]


async def children_by_status(client: LocalClient, parent_run_id: str, running: int) -> dict[str, list[dict[str, Any]]]:
    """`subagents.list` for the parent run, grouped by status, once `running` of them are running."""
    async with deadline(20, f"{running} children running"):
        while True:
            rows = await client.call("subagents.list", parentRunId=parent_run_id)
            grouped: dict[str, list[dict[str, Any]]] = {}
            for row in rows:
                grouped.setdefault(row["status"], []).append(row)
            if len(grouped.get("running", [])) >= running:
                return grouped
            await asyncio.sleep(0.05)


async def test_nine_children_run_at_most_eight_at_once(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, "[agents.defaults.subagents]\nmaxChildren = 20\n")
    client: LocalClient = make_client()
    lifecycle = client.gateway.bus.subscribe(lambda e: e.stream == "lifecycle")
    spawns = [("sessions_spawn", {"task": f"Job number {n}.", "label": f"job{n}"}) for n in range(9)]
    claw_env.server.default = roles = Roles(
        parent=[tool_calls(spawns), text("nine started")],
        child=[hang()] * 8,  # the first eight run until stopped
        child_default=text("the ninth is done"),
    )
    handle = await client.run("fan out")
    await collect(client, handle.run_id)  # all nine spawned
    await eventually(lambda: len(roles.seen["child"]) >= 8, what="eight children asking the model")

    grouped = await children_by_status(client, handle.run_id, running=8)
    assert sorted(grouped) == ["queued", "running"], grouped
    assert len(grouped["running"]) == 8 and [r["label"] for r in grouped["queued"]] == ["job8"]  # FIFO
    assert len(roles.seen["child"]) == 8  # the ninth never reached the model while eight ran
    assert client.gateway.lanes.global_lane("subagent").queued == 1

    # One ends: the ninth starts in its place, and finishes on its own.
    first = next(r for r in grouped["running"] if r["label"] == "job0")
    assert await client.call("subagents.abort", runId=first["runId"]) == {"runId": first["runId"], "aborted": 1}
    await eventually(lambda: len(roles.seen["child"]) == 9, what="the ninth child asking the model")
    ninth = grouped["queued"][0]
    assert (await collect(client, ninth["runId"]))[-1].data["text"] == "the ninth is done"

    for row in grouped["running"][1:]:
        await client.call("subagents.abort", runId=row["runId"])
    state = await settle(client, handle.run_id, timeout=90)
    statuses = {c["label"]: c["status"] for c in state["children"]}
    assert statuses == {**{f"job{n}": "aborted" for n in range(8)}, "job8": "ok"}
    assert len(roles.seen["announce"]) == 9

    events = await drained(lifecycle)
    child_ids = {c["runId"] for c in state["children"]}
    assert most_at_once(events, child_ids) == 8
    ends = [e.run_id for e in events if e.run_id in child_ids and e.is_terminal]
    starts = [e.run_id for e in events if e.run_id in child_ids and e.phase == "start"]
    assert starts[-1] == ninth["runId"] and ends[0] == first["runId"]  # the ninth took the first free slot


async def test_the_lane_size_comes_from_config(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, "[agents.defaults.subagents]\nmaxConcurrent = 2\n")
    client: LocalClient = make_client()
    lifecycle = client.gateway.bus.subscribe(lambda e: e.stream == "lifecycle")
    spawns = [("sessions_spawn", {"task": f"Job {n}.", "label": f"job{n}"}) for n in range(3)]
    claw_env.server.default = roles = Roles(
        parent=[tool_calls(spawns), text("three started")],
        child=[hang()] * 2,
        child_default=text("the third is done"),
    )
    handle = await client.run("fan out")
    await collect(client, handle.run_id)
    grouped = await children_by_status(client, handle.run_id, running=2)
    assert len(grouped["running"]) == 2 and [r["label"] for r in grouped["queued"]] == ["job2"]
    # "running" is the lane's word; the child's request reaches the model a moment later.
    await eventually(lambda: len(roles.seen["child"]) >= 2, what="both running children asking the model")
    assert len(roles.seen["child"]) == 2  # the queued third never did
    for row in grouped["running"]:
        await client.call("subagents.abort", runId=row["runId"])
    state = await settle(client, handle.run_id, timeout=60)
    assert [c["status"] for c in state["children"]] == ["aborted", "aborted", "ok"]
    assert most_at_once(await drained(lifecycle), {c["runId"] for c in state["children"]}) == 2
