"""Queue modes with messages arriving at controlled moments (a scripted slow model)."""

from __future__ import annotations

import asyncio

from claw.client.local import LocalClient
from tests.gateway.conftest import collect, phases, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow, text, tool_call


async def _streaming(client: LocalClient, run_id: str) -> None:
    async for event in client.events(run_id):
        if event.stream == "assistant":
            return


async def test_followup_runs_after_the_current_turn(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(slow("one two three", delay_per_chunk=0.1), text("second"))
    first = await client.run("first")
    await _streaming(client, first.run_id)
    second = await client.run("second message")
    assert second.status == "accepted" and second.run_id != first.run_id
    assert (await collect(client, second.run_id))[-1].data["text"] == "second"
    assert [m["content"] for m in claw_env.server.chat_requests[1].body["messages"][1:]] == [
        "first", "one two three", "second message"
    ]


async def test_collect_merges_messages_into_one_turn(claw_env: ClawEnv, client: LocalClient) -> None:
    await client.run("/queue collect debounce:200ms")
    claw_env.server.script(slow("busy busy", delay_per_chunk=0.15), text("merged answer"))
    first = await client.run("start")
    await _streaming(client, first.run_id)
    a = await client.run("also this")
    b = await client.run("and that")
    assert a.status == "accepted" and b.status == "merged" and b.run_id == a.run_id
    events = await collect(client, a.run_id)
    assert events[-1].data["text"] == "merged answer"
    assert len(claw_env.server.chat_requests) == 2
    assert claw_env.server.chat_requests[1].body["messages"][-1]["content"] == "also this\n\nand that"


async def test_steer_injects_into_the_running_turn(claw_env: ClawEnv, client: LocalClient) -> None:
    await client.run("/queue steer")
    gate = asyncio.Event()
    asked = asyncio.Event()

    async def hold_then_deny(request):  # keeps the first turn inside its tool call until we steer
        asked.set()
        await gate.wait()
        return "deny"

    client.gateway.approvals.set_approver(hold_then_deny)
    claw_env.server.script(tool_call("exec", {"command": "touch steered.txt"}), text("adjusted answer"))
    first = await client.run("do the thing")
    await asyncio.wait_for(asked.wait(), 5)
    steer = await client.run("actually, use French")
    gate.set()
    steered_events = await collect(client, steer.run_id)
    assert steered_events[-1].data["phase"] == "end" and steered_events[-1].data["steeredInto"] == first.run_id
    events = await collect(client, first.run_id)
    assert "steered" in phases(events)
    assert events[-1].data["text"] == "adjusted answer"
    second_request = claw_env.server.chat_requests[1].body["messages"]
    assert second_request[-1] == {"role": "user", "content": "actually, use French"}
    assert len(claw_env.server.chat_requests) == 2


async def test_steer_falls_back_to_followup_when_the_turn_ends_first(claw_env: ClawEnv, client: LocalClient) -> None:
    await client.run("/queue steer")
    claw_env.server.script(slow("final words here", delay_per_chunk=0.1), text("followup answer"))
    first = await client.run("hello")
    await _streaming(client, first.run_id)
    late = await client.run("one more thing")
    assert (await collect(client, late.run_id))[-1].data["text"] == "followup answer"
    assert phases(await collect(client, first.run_id))[-1] == "end"


async def test_interrupt_aborts_the_running_turn(claw_env: ClawEnv, client: LocalClient) -> None:
    await client.run("/queue interrupt")
    claw_env.server.script(slow("long long long long " * 20, delay_per_chunk=0.1), text("new answer"))
    first = await client.run("tell me a story")
    await _streaming(client, first.run_id)
    second = await client.run("stop, answer this")
    first_events = await collect(client, first.run_id)
    assert first_events[-1].data["phase"] == "aborted"
    assert first_events[-1].data["reason"] == "interrupted by a newer message"
    assert (await collect(client, second.run_id))[-1].data["text"] == "new answer"


async def test_cap_drops_oldest_with_a_summary_for_the_next_turn(claw_env: ClawEnv, client: LocalClient) -> None:
    await client.run("/queue followup cap:2 drop:summarize")
    claw_env.server.script(slow("working on it", delay_per_chunk=0.15))
    first = await client.run("first")
    await _streaming(client, first.run_id)
    queued = [await client.run(f"queued {i}") for i in range(3)]
    dropped = await collect(client, queued[0].run_id)
    assert dropped[-1].data == {"phase": "aborted", "reason": "dropped: queue full (2 waiting)"}
    for handle in queued[1:]:
        assert phases(await collect(client, handle.run_id))[-1] == "end"
    second_request = claw_env.server.chat_requests[1].body["messages"]
    notes = [m["content"] for m in second_request if "dropped" in str(m["content"])]
    assert notes and "queued 0" in notes[0]


async def test_cap_with_drop_new_refuses_the_message(claw_env: ClawEnv, client: LocalClient) -> None:
    await client.run("/queue cap:1 drop:new")
    claw_env.server.script(slow("working", delay_per_chunk=0.2))
    first = await client.run("first")
    await _streaming(client, first.run_id)
    kept = await client.run("kept")
    refused = await client.run("refused")
    assert kept.status == "accepted"
    assert refused.status == "dropped" and "queue full" in refused.reply
    await collect(client, kept.run_id)


async def test_queue_command_shows_and_resets(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, '[messages.queue]\nmode = "collect"\n')
    client = make_client()
    assert "collect" in (await client.run("/queue")).reply and "[config]" in (await client.run("/queue")).reply
    assert "steer" in (await client.run("/queue steer debounce:2s")).reply
    shown = (await client.run("/queue")).reply
    assert "steer (debounce 2 s" in shown and "[this session]" in shown
    assert "collect" in (await client.run("/queue reset")).reply
    bad = await client.run("/queue sideways")
    assert bad.status == "command" and "cannot use 'sideways'" in bad.reply
