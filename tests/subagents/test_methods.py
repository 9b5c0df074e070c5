"""What a console uses (`subagents.list`, `subagents.abort`), `/subagents`, and reports that survive a /stop."""

from __future__ import annotations

import json

import pytest

from claw.client.local import LocalClient
from claw.errors import NotFoundError
from tests.gateway.conftest import collect, write_config
from tests.subagents.conftest import Roles, eventually, settle, turn_message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import hang, text, tool_call, tool_calls


async def test_list_then_abort_one_child(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.default = roles = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Wait forever.", "label": "sleeper"}), text("started")],
        child=[hang()],
    )
    handle = await client.run("go")
    await collect(client, handle.run_id)
    await eventually(lambda: roles.seen["child"], what="the child's model request")
    [row] = await client.call("subagents.list", parentRunId=handle.run_id)
    assert row["status"] == "running" and row["label"] == "sleeper" and row["parentSessionKey"] == "agent:main:main"
    assert await client.call("subagents.list", activeOnly=True) == [row]

    assert (await client.call("subagents.abort", runId=row["runId"]))["aborted"] == 1
    state = await settle(client, handle.run_id)
    assert state["children"][0]["status"] == "aborted"
    assert turn_message(roles.seen["announce"][0]).startswith('[System event] Subagent "sleeper" was stopped')
    assert await client.call("subagents.list", activeOnly=True) == []
    with pytest.raises(NotFoundError):
        await client.call("subagents.abort", runId="nope")


async def test_slash_subagents_lists_and_stops(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.default = roles = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Wait.", "label": "waiter"}), text("started")],
        child=[hang()],
    )
    handle = await client.run("go")
    await collect(client, handle.run_id)
    await eventually(lambda: roles.seen["child"], what="the child's model request")
    listing = (await client.run("/subagents")).reply
    assert "waiter" in listing and "running" in listing
    assert (await client.run("/subagents stop all")).reply.startswith("Stopping 1 subagent;")
    await settle(client, handle.run_id)
    assert "aborted" in (await client.run("/subagents")).reply


async def test_a_report_stopped_while_queued_reaches_the_next_turn(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.default = roles = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Be quick.", "label": "quick"}), hang()],
        child=[text("quick result")],
    )
    handle = await client.run("go")
    await eventually(lambda: roles.seen["child"] and len(roles.seen["parent"]) == 2, what="child done, parent busy")
    # the announcement waits behind the parent's busy turn; /stop aborts both
    await eventually(lambda: len(client.gateway.runs.active("agent:main:main")) == 2, what="the queued report")
    assert "Stopped 2 runs" in (await client.run("/stop")).reply
    state = await settle(client, handle.run_id)
    assert state["children"][0]["announce"] == "noted" and roles.seen["announce"] == []

    claw_env.server.default = None
    claw_env.server.script(text("I see the quick result."))
    await collect(client, (await client.run("what happened?")).run_id)
    sent = claw_env.server.chat_requests[-1].messages
    assert any(str(m["content"] or "").startswith('[System event] Subagent "quick" finished.') for m in sent)


async def test_a_session_may_have_only_so_many_children(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, "[agents.defaults.subagents]\nmaxChildren = 1\n")
    client: LocalClient = make_client()
    two = tool_calls([("sessions_spawn", {"task": "One."}), ("sessions_spawn", {"task": "Two."})])
    claw_env.server.default = Roles(parent=[two, text("tried")], child=[hang()])
    handle = await client.run("go")
    events = await collect(client, handle.run_id)
    results = [e.data for e in events if e.stream == "tool" and e.data["phase"] == "result"]
    assert json.loads(results[0]["result"])["status"] == "accepted"
    assert results[1]["isError"] and "already has 1 subagents running" in results[1]["result"]
    [row] = await client.call("subagents.list")
    await client.call("subagents.abort", runId=row["runId"])
    await settle(client, handle.run_id)
