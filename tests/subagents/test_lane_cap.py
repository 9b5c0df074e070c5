"""The `subagent` lane: nine children, at most eight running at once, the ninth as soon as one ends."""

from __future__ import annotations

import time

from claw.gateway.client import LocalClient
from tests.gateway.conftest import collect, write_config
from tests.subagents.conftest import Roles, settle
from tests.support.fixtures import ClawEnv
from tests.support.model_server import RecordedRequest, Reply, slow, text, tool_calls


def most_at_once(requests: list[RecordedRequest]) -> int:
    edges = sorted([(r.received_at, 1) for r in requests] + [(r.finished_at, -1) for r in requests])
    running = peak = 0
    for _when, step in edges:
        running += step
        peak = max(peak, running)
    return peak


async def test_nine_children_run_at_most_eight_at_once(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, "[agents.defaults.subagents]\nmaxChildren = 20\n")
    client: LocalClient = make_client()
    spawns = [("sessions_spawn", {"task": f"Job number {n}.", "label": f"job{n}"}) for n in range(9)]
    first_arrival: list[float] = []

    def child(request: RecordedRequest) -> Reply:
        """Every reply lasts until 3 s after the first child asked, so all that can run at once overlap."""
        first_arrival.append(first_arrival[0] if first_arrival else time.perf_counter())
        left = first_arrival[0] + 3.0 - time.perf_counter()
        return slow("working on it now, done", delay_per_chunk=max(0.05, left / 5))

    claw_env.server.default = roles = Roles(parent=[tool_calls(spawns), text("nine started")], child_default=child)
    handle = await client.run("fan out")
    await collect(client, handle.run_id)
    state = await settle(client, handle.run_id, timeout=90)

    children = roles.seen["child"]
    assert len(children) == 9 and all(r.finished_at is not None for r in children)
    assert most_at_once(children) == 8
    first_eight, ninth = children[:8], children[8]
    assert ninth.received_at >= min(r.finished_at for r in first_eight)  # it waited for a free slot
    assert [c["status"] for c in state["children"]] == ["ok"] * 9
    assert len(roles.seen["announce"]) == 9


async def test_the_lane_size_comes_from_config(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, "[agents.defaults.subagents]\nmaxConcurrent = 2\n")
    client: LocalClient = make_client()
    spawns = [("sessions_spawn", {"task": f"Job {n}."}) for n in range(3)]
    claw_env.server.default = roles = Roles(
        parent=[tool_calls(spawns), text("three started")],
        child_default=slow("a b c d", delay_per_chunk=0.2),
    )
    handle = await client.run("fan out")
    await collect(client, handle.run_id)
    await settle(client, handle.run_id, timeout=60)
    assert most_at_once(roles.seen["child"]) == 2
