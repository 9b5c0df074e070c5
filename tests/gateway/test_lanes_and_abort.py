"""Session lanes, the global lane, /stop, timeouts: runs happen in order, in parallel, or not at all."""

from __future__ import annotations

import asyncio
import time

from claw.client.local import LocalClient
from tests.gateway.conftest import collect, phases, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import CHAT_PATH, hang, slow, text


async def test_two_messages_to_one_session_run_in_order(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(slow("first reply", delay_per_chunk=0.1), text("second reply"))
    first = await client.run("one")
    second = await client.run("two")
    events_first, events_second = await asyncio.gather(
        collect(client, first.run_id), collect(client, second.run_id)
    )

    assert events_first[-1].data["text"] == "first reply"
    assert events_second[-1].data["text"] == "second reply"
    # the second run started only after the first ended, and saw the first turn in its history
    first_end = claw_env.server.chat_requests[0]
    second_request = claw_env.server.chat_requests[1].body["messages"]
    assert [m["content"] for m in second_request[1:]] == ["one", "first reply", "two"]
    assert claw_env.server.chat_requests[1].received_at > first_end.received_at


async def test_two_sessions_run_in_parallel(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(slow("a a a a", delay_per_chunk=0.5), slow("b b b b", delay_per_chunk=0.5))
    a = await client.run("to a", session_key="agent:main:a")
    b = await client.run("to b", session_key="agent:main:b")
    ea, eb = await asyncio.gather(collect(client, a.run_id), collect(client, b.run_id))
    # Both requests reached the model before either reply was finished: the server's own clock, not the
    # test's, so a loaded machine cannot make a serial gateway look parallel or a parallel one look serial.
    first, second = claw_env.server.chat_requests
    assert first.finished_at is not None and second.received_at < first.finished_at
    assert phases(ea)[-1] == phases(eb)[-1] == "end"
    assert {ea[-1].session_key, eb[-1].session_key} == {"agent:main:a", "agent:main:b"}


async def test_global_lane_caps_concurrency(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, "[agents.defaults]\nmaxConcurrent = 1\n")
    client = make_client()
    claw_env.server.script(slow("x x x", delay_per_chunk=0.15), text("y"))
    a = await client.run("a", session_key="s1")
    b = await client.run("b", session_key="s2")
    await claw_env.server.wait_for_requests_async(1, path=CHAT_PATH)
    events_a, events_b = await asyncio.gather(collect(client, a.run_id), collect(client, b.run_id))
    # s2 waited for the only global slot: its request reached the model after s1's reply was complete
    first, second = claw_env.server.chat_requests
    assert first.body["messages"][-1]["content"] == "a"
    assert second.received_at >= first.wait_finished()
    assert phases(events_a)[-1] == phases(events_b)[-1] == "end"


async def test_stop_aborts_mid_stream_within_a_second(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(slow("partial words keep coming " * 40, delay_per_chunk=0.05))
    handle = await client.run("talk forever")
    seen: list = []
    streaming = asyncio.Event()

    async def follow() -> None:
        async for event in client.events(handle.run_id):
            seen.append(event)
            if event.stream == "assistant":
                streaming.set()

    follower = asyncio.create_task(follow())
    await asyncio.wait_for(streaming.wait(), 5)
    reply = await client.run("/stop")
    stopped_at = time.perf_counter()
    assert reply.status == "command" and "Stopped 1 run" in reply.reply
    await asyncio.wait_for(follower, 1.0)
    assert time.perf_counter() - stopped_at < 1.0
    assert phases(seen)[-1] == "aborted"

    history = await client.call("chat.history")
    last = history["messages"][-1]
    assert last["role"] == "assistant" and last["aborted"] is True and last["content"].startswith("partial")
    outcome = await client.call("agent.wait", runId=handle.run_id, timeoutMs=100)
    assert outcome["status"] == "aborted"


async def test_stop_also_drops_queued_runs(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(hang())
    running = await client.run("one")
    queued = await client.run("two")
    await claw_env.server.wait_for_requests_async(1, path=CHAT_PATH)
    reply = await client.run("/stop")
    assert "Stopped 2 runs" in reply.reply
    assert phases(await collect(client, queued.run_id))[-1] == "aborted"
    assert phases(await collect(client, running.run_id))[-1] == "aborted"
    assert len(claw_env.server.chat_requests) == 1


async def test_run_timeout_ends_with_error(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, "[agents.defaults]\ntimeoutSeconds = 0.5\n")
    client = make_client()
    claw_env.server.script(hang())
    handle = await client.run("wait")
    events = await asyncio.wait_for(collect(client, handle.run_id), 3)
    assert events[-1].data["phase"] == "error"
    assert "timed out after 0.5 s" in events[-1].data["message"]


async def test_agent_wait_times_out_without_stopping_the_run(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(slow("slow but sure", delay_per_chunk=0.1))
    handle = await client.run("go")
    assert (await client.call("agent.wait", runId=handle.run_id, timeoutMs=50))["status"] == "timeout"
    done = await client.call("agent.wait", runId=handle.run_id, timeoutMs=5000)
    assert done["status"] == "ok" and done["text"] == "slow but sure"
