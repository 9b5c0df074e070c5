"""One client API, two transports: the same tests against LocalClient and RemoteClient."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from claw.client.local import LocalClient
from claw.client.protocol import GatewayClient
from claw.client.remote import GatewayNotListening, RemoteClient
from claw.errors import GatewayUnavailable, NotFoundError, UsageError
from claw.tools.base import ApprovalRequest, Decision
from claw.vocab.run_event import RunEvent
from tests.server.conftest import TOKEN, Served
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow, text, tool_call

TOUCH = os.path.realpath(shutil.which("touch") or "/usr/bin/touch")


async def _collect(client: GatewayClient, run_id: str) -> list[RunEvent]:
    return [event async for event in client.events(run_id)]


async def test_run_and_events(claw_env: ClawEnv, any_client: GatewayClient) -> None:
    claw_env.server.script(text("Same on both transports."))
    handle = await any_client.run("hi", session_key="agent:main:both")
    assert handle.status == "accepted" and handle.session_key == "agent:main:both"
    assert handle.run_id is not None
    events = await _collect(any_client, handle.run_id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert [e.data["phase"] for e in events if e.stream == "lifecycle"] == ["accepted", "start", "end"]
    assert events[-1].data["text"] == "Same on both transports."
    again = await _collect(any_client, handle.run_id)  # a finished run replays from its first event
    assert [e.to_wire() for e in again] == [e.to_wire() for e in events]
    history = await any_client.call("chat.history", sessionKey="agent:main:both")
    assert [m["content"] for m in history["messages"]] == ["hi", "Same on both transports."]


async def test_errors_are_the_same_exceptions(any_client: GatewayClient) -> None:
    with pytest.raises(NotFoundError, match="no session agent:main:nope"):
        await any_client.call("sessions.delete", sessionKey="agent:main:nope")
    with pytest.raises(UsageError, match="unknown method: nope"):
        await any_client.call("nope")
    with pytest.raises(UsageError, match="'message'"):
        await any_client.call("agent")


async def test_idempotency_key_and_commands(claw_env: ClawEnv, any_client: GatewayClient) -> None:
    claw_env.server.script(text("once"))
    first = await any_client.run("x", idempotency_key="same")
    second = await any_client.run("x", idempotency_key="same")
    assert first.run_id == second.run_id and first.run_id is not None
    assert (await _collect(any_client, first.run_id))[-1].data["text"] == "once"
    assert len(claw_env.server.chat_requests) == 1
    command = await any_client.run("/status")
    assert command.status == "command" and command.run_id is None and "agent:main:main" in (command.reply or "")


async def test_abort_through_the_client(claw_env: ClawEnv, any_client: GatewayClient) -> None:
    claw_env.server.script(slow("tick " * 100, delay_per_chunk=0.05))
    handle = await any_client.run("long one")
    assert handle.run_id is not None
    seen: list[RunEvent] = []
    async for event in any_client.events(handle.run_id):
        seen.append(event)
        if event.stream == "assistant" and len(seen) == 4:
            assert await any_client.call("agent.abort", runId=handle.run_id) == {"aborted": 1}
    assert seen[-1].data["phase"] == "aborted"
    assert (await any_client.call("agent.wait", runId=handle.run_id))["status"] == "aborted"


async def test_events_of_a_run_started_elsewhere(claw_env: ClawEnv, served: Served, any_client: GatewayClient) -> None:
    claw_env.server.script(slow("from another client", delay_per_chunk=0.05))
    other = LocalClient(served.gateway, owns_gateway=False, channel="tui")
    handle = await other.run("started by someone else")
    assert handle.run_id is not None
    events = await _collect(any_client, handle.run_id)
    assert events[0].seq == 1 and events[-1].data["text"] == "from another client"
    with pytest.raises(NotFoundError):
        await _collect(any_client, "no-such-run")


async def test_exec_approval_answered_by_the_client(
    claw_env: ClawEnv, served: Served, any_client: GatewayClient
) -> None:
    asked: list[ApprovalRequest] = []

    async def approve(request: ApprovalRequest) -> Decision:
        asked.append(request)
        return "allow-once"

    if isinstance(any_client, RemoteClient):
        client: GatewayClient = await RemoteClient.connect(served.url, TOKEN, approver=approve)
    else:
        served.gateway.approvals.set_approver(approve)
        client = any_client
    claw_env.server.script(tool_call("exec", {"command": "touch approved.txt"}), text("touched"))
    handle = await client.run("touch it")
    assert handle.run_id is not None
    events = await _collect(client, handle.run_id)
    result = next(e for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert result.data["isError"] is False, result.data
    assert (claw_env.home / "workspace" / "approved.txt").exists()
    assert [r.command for r in asked] == ["touch approved.txt"] and asked[0].session_key == "agent:main:main"
    assert served.gateway.approvals.pending() == []
    if client is not any_client:
        await client.close()


async def test_without_an_approving_client_the_fallback_denies(claw_env: ClawEnv, served: Served) -> None:
    client = await RemoteClient.connect(served.url, TOKEN)  # connected, but not opted into approvals
    claw_env.server.script(tool_call("exec", {"command": "touch denied.txt"}), text("could not"))
    handle = await client.run("touch it")
    assert handle.run_id is not None
    events = await _collect(client, handle.run_id)
    result = next(e for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert result.data["isError"] is True and "denied" in result.data["result"]
    assert not (claw_env.home / "workspace" / "denied.txt").exists()
    await client.close()


async def test_approval_over_the_raw_protocol_and_a_leaving_approver(claw_env: ClawEnv, served: Served) -> None:
    """`exec.approval.requested` reaches opted-in clients; when the last one leaves, the fallback applies."""
    from tests.server.conftest import connect_frame, open_wire

    approver = await open_wire(served.url, handshake=False)
    await approver.send(connect_frame(caps=["approvals"]))
    await approver.res("c1")
    runner = await RemoteClient.connect(served.url, TOKEN)
    claw_env.server.script(tool_call("exec", {"command": "touch left.txt"}), text("ok"))
    handle = await runner.run("touch it")
    asked = await approver.recv()
    assert asked["event"] == "exec.approval.requested" and asked["payload"]["request"]["command"] == "touch left.txt"
    pending = await runner.call("exec.approval.list")
    assert [p["id"] for p in pending] == [asked["payload"]["id"]]
    await approver.close()  # the only approver leaves without answering
    assert handle.run_id is not None
    events = await asyncio.wait_for(_collect(runner, handle.run_id), 20)
    result = next(e for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert result.data["isError"] is True
    assert not (claw_env.home / "workspace" / "left.txt").exists()
    await runner.close()


async def test_remote_client_refusals(served: Served, tmp_path: Path) -> None:
    with pytest.raises(GatewayUnavailable, match="refused the connection: unauthorized"):
        await RemoteClient.connect(served.url, "not-the-token")
    with pytest.raises(UsageError, match="plain ws://"):
        await RemoteClient.connect("ws://192.0.2.1:18789/", TOKEN)
    with pytest.raises(UsageError, match="invalid gateway URL"):
        await RemoteClient.connect("http://127.0.0.1:1/", TOKEN)
    port = served.server.port
    await served.gateway.close()
    with pytest.raises(GatewayNotListening):
        await RemoteClient.connect(f"ws://127.0.0.1:{port}/", TOKEN)


async def test_remote_client_sees_the_connection_drop(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(slow("never finishes " * 50, delay_per_chunk=0.2))
    client = await RemoteClient.connect(served.url, TOKEN)
    handle = await client.run("x")
    assert handle.run_id is not None
    await served.server.stop()
    with pytest.raises(GatewayUnavailable):
        await _collect(client, handle.run_id)
    assert client.closed
    with pytest.raises(GatewayUnavailable):
        await client.call("health")
    await client.close()
