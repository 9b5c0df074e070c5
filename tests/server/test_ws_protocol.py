"""The WebSocket protocol with a raw `websockets` client: handshake, every method, two-stage `agent`."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from typing import Any

import pytest
from websockets.asyncio.client import connect

from claw import __version__
from claw.protocol.frames import encoded, event
from tests.server.conftest import TOKEN, MakeServed, Served, Wire, connect_frame, open_wire
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow, text
from tests.support.waiting import deadline


async def test_challenge_then_hello_with_snapshot_auth_policy_and_every_method(served: Served) -> None:
    wire = await open_wire(served.url, handshake=False)
    assert isinstance(wire.challenge["nonce"], str) and len(wire.challenge["nonce"]) >= 16
    assert abs(wire.challenge["ts"] - time.time() * 1000) < 60_000  # milliseconds, as OpenClaw's
    await wire.send(connect_frame(caps=["approvals"], scopes=["operator.read", "operator.write", "bogus.scope"]))
    hello = await wire.res("c1")
    assert hello["ok"] is True
    payload = hello["payload"]
    # Exactly the fields of OpenClaw's HelloOk schema, which is a closed object at every level used here.
    assert set(payload) == {"type", "protocol", "server", "features", "snapshot", "auth", "policy"}
    assert payload["type"] == "hello-ok" and payload["protocol"] == 4
    assert set(payload["server"]) == {"version", "connId"}
    assert payload["server"]["version"] == __version__ and payload["server"]["connId"]
    connection_methods = {"sessions.messages.subscribe", "sessions.messages.unsubscribe",  # the connection's own
                          "plugin.approval.list", "plugin.approval.resolve"}  # fmt: skip
    server_methods = {"device.pair.list", "device.pair.approve", "device.pair.reject", "device.pair.remove",
                      "device.pair.rename"}  # fmt: skip
    assert payload["features"]["methods"] == sorted({*served.gateway.methods, *connection_methods, *server_methods})
    assert {"agent", "agent.wait", "agent.abort", "chat.history", "sessions.list", "workspace.write"} <= set(
        payload["features"]["methods"]
    )
    assert {"agent", "tick"} <= set(payload["features"]["events"])
    assert payload["features"]["capabilities"] == ["published-model-catalog"]  # what `openclaw models list` needs
    # The scopes asked for that exist, and only those, are this socket's authority.
    assert payload["auth"] == {"method": "token", "role": "operator", "scopes": ["operator.read", "operator.write"]}
    assert payload["policy"] == {"maxPayload": 25 * 1024 * 1024, "maxBufferedBytes": 50 * 1024 * 1024,
                                 "tickIntervalMs": 30_000}  # fmt: skip
    snapshot = payload["snapshot"]
    assert snapshot["sessionDefaults"] == {
        "defaultAgentId": "main",
        "mainKey": "main",
        "mainSessionKey": "agent:main:main",
    }
    assert snapshot["health"]["ok"] is True and snapshot["uptimeMs"] >= 0
    assert set(snapshot["stateVersion"]) == {"presence", "health"}
    assert [p["clientId"] for p in snapshot["presence"]] == ["test"]
    assert (await wire.call("health"))["ok"] is True
    await wire.close()


async def test_tick_events_keep_an_idle_connection_alive(make_served: MakeServed) -> None:
    served = await make_served(tick_interval_s=0.05)
    wire = await open_wire(served.url)
    ticks = [await wire.recv() for _ in range(3)]
    assert [t["event"] for t in ticks] == ["tick"] * 3
    assert all(isinstance(t["payload"]["ts"], int) for t in ticks)
    assert ticks[0]["payload"]["ts"] <= ticks[2]["payload"]["ts"]
    await wire.close()


async def test_agent_replies_twice_with_events_between(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("Hello over the wire."))
    wire = await open_wire(served.url)
    await wire.send({"type": "req", "id": "a1", "method": "agent", "params": {"message": "hi", "idempotencyKey": "k1"}})
    first = await wire.res("a1")
    assert first["ok"] and first["payload"]["status"] == "accepted"
    run_id = first["payload"]["runId"]
    assert run_id == "k1"  # the client's idempotency key is the run id, as in OpenClaw
    assert first["payload"]["sessionKey"] == "agent:main:main"
    final = await wire.res("a1", timeout=20)
    assert final["ok"] and final["payload"]["status"] == "ok"
    result = final["payload"]
    assert result["runId"] == run_id and result["summary"] == "completed"
    assert result["result"]["payloads"] == [{"text": "Hello over the wire."}]  # OpenClaw's final result
    assert result["text"] == "Hello over the wire."  # and claw's, beside it
    assert isinstance(result["startedAt"], int) and result["endedAt"] >= result["startedAt"]  # ms

    # Between the two responses: every RunEvent of the run, in order, as `agent` event frames.
    runs = [e["payload"] for e in wire.events if e["event"] == "agent"]
    assert [e["seq"] for e in runs] == list(range(1, len(runs) + 1))
    assert {e["runId"] for e in runs} == {run_id}
    assert [e["data"]["phase"] for e in runs if e["stream"] == "lifecycle"] == ["accepted", "start", "end"]
    assert "".join(e["data"].get("delta", "") for e in runs) == "Hello over the wire."
    # OpenClaw's event shape: ts in ms, the agent, the transcript once started, cumulative text.
    session_id = result["result"]["meta"]["agentMeta"]["sessionId"]
    assert all(e["agentId"] == "main" and abs(e["ts"] - time.time() * 1000) < 60_000 for e in runs)
    assert {e.get("sessionId") for e in runs[1:]} == {session_id}
    texts = [e["data"]["text"] for e in runs if e["stream"] == "assistant"]
    assert texts[-1] == "Hello over the wire." and texts == sorted(texts, key=len)
    # The frame order: res(accepted) < events < res(final); the per-connection event seq only grows.
    order = [f["type"] for f in [first, *wire.events, final]]
    assert order[0] == "res" and order[-1] == "res" and set(order[1:-1]) == {"event"}
    assert [e["seq"] for e in wire.events] == sorted({e["seq"] for e in wire.events})
    await wire.close()


async def test_same_idempotency_key_never_starts_a_second_run(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("only once"))
    one, two = await open_wire(served.url), await open_wire(served.url)
    params = {"message": "do it once", "idempotencyKey": "same-key"}
    await one.send({"type": "req", "id": "x", "method": "agent", "params": params})
    await two.send({"type": "req", "id": "y", "method": "agent", "params": params})
    first, second = await one.res("x"), await two.res("y")
    assert first["payload"]["runId"] == second["payload"]["runId"]
    # A repeat on the same connection, too; it gets its own final answer.
    await one.send({"type": "req", "id": "z", "method": "agent", "params": params})
    third = await one.res("z")
    assert third["payload"]["runId"] == first["payload"]["runId"]
    finals = [await one.res("x", timeout=20), await one.res("z", timeout=20), await two.res("y", timeout=20)]
    assert {f["payload"]["text"] for f in finals} == {"only once"}
    assert len(claw_env.server.chat_requests) == 1
    # One connection following the same run twice still sees each event once.
    seqs = [e["payload"]["seq"] for e in one.events if e["event"] == "agent"]
    assert seqs == sorted(set(seqs))
    history = await one.call("chat.history")
    assert [m["content"] for m in history["messages"] if m["role"] == "user"] == ["do it once"]
    await one.close()
    await two.close()


async def test_abort_and_wait(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(slow("one two three four five six seven eight nine ten " * 5, delay_per_chunk=0.1))
    wire = await open_wire(served.url)
    await wire.send({"type": "req", "id": "a", "method": "agent", "params": {"message": "long", "idempotencyKey": "l"}})
    run_id = (await wire.res("a"))["payload"]["runId"]
    async with deadline(20, "the first streamed delta"):
        while not any(e["payload"]["stream"] == "assistant" for e in wire.events if e["event"] == "agent"):
            await wire.recv()
    timeout = await wire.request("agent.wait", {"runId": run_id, "timeoutMs": 50})
    assert timeout["payload"] == {"status": "timeout"}
    assert (await wire.call("agent.abort", runId=run_id)) == {"aborted": 1}
    final = await wire.res("a", timeout=20)
    assert final["payload"]["status"] == "aborted"
    waited = await wire.call("agent.wait", runId=run_id)
    assert waited["status"] == "aborted"
    phases = [e["payload"]["data"].get("phase") for e in wire.events if e["event"] == "agent"]
    assert phases[-1] == "aborted"
    await wire.close()


async def test_sessions_workspace_status_methods(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("first"), text("second"))
    wire = await open_wire(served.url)
    for n, key in enumerate(("agent:main:main", "agent:main:side")):
        await wire.send(
            {
                "type": "req",
                "id": f"m{n}",
                "method": "agent",
                "params": {"message": f"msg {n}", "sessionKey": key, "idempotencyKey": f"i{n}"},
            }
        )
        await wire.res(f"m{n}")
        await wire.res(f"m{n}", timeout=20)
    listed = await wire.call("sessions.list")
    assert {r["key"] for r in listed["sessions"]} == {"agent:main:main", "agent:main:side"}
    assert listed["count"] == listed["totalCount"] == 2 and listed["hasMore"] is False
    history = await wire.call("chat.history", sessionKey="agent:main:side")
    assert [m["content"] for m in history["messages"]] == ["msg 1", "second"]
    assert all(isinstance(m["timestamp"], int) for m in history["messages"])  # OpenClaw's ms beside createdAt
    status = await wire.call("status")
    assert status["sessions"]["count"] == 2 and status["activeRuns"] == 0 and status["agents"] == ["main"]

    old_id = history["sessionId"]
    reset = await wire.call("sessions.reset", key="agent:main:side")  # OpenClaw names the session `key`
    assert reset["ok"] is True and reset["key"] == "agent:main:side" and reset["entry"]["sessionId"] != old_id
    assert (await wire.call("chat.history", sessionKey="agent:main:side"))["messages"] == []
    deleted = await wire.call("sessions.delete", key="agent:main:side")
    assert deleted["ok"] is True and deleted["deleted"] is True and deleted["key"] == "agent:main:side"
    assert [r["key"] for r in (await wire.call("sessions.list"))["sessions"]] == ["agent:main:main"]
    missing = await wire.request("sessions.delete", {"key": "agent:main:side"})
    assert missing["ok"] is False and missing["error"]["code"] == "INVALID_REQUEST"
    assert missing["error"]["details"] == {"code": "NOT_FOUND"}  # claw's clients raise NotFoundError from it

    written = await wire.call("workspace.write", name="user", content="Name: Ada\n")
    assert written["name"] == "USER.md"
    assert (claw_env.home / "workspace" / "USER.md").read_text() == "Name: Ada\n"
    assert (await wire.call("workspace.read", name="USER.md"))["content"] == "Name: Ada\n"
    await wire.close()


async def test_agent_follow_replays_a_finished_run_and_chat_history_catches_up(
    claw_env: ClawEnv, served: Served
) -> None:
    claw_env.server.script(text("while you were away"))
    wire = await open_wire(served.url)
    await wire.send({"type": "req", "id": "a", "method": "agent", "params": {"message": "go", "idempotencyKey": "f"}})
    run_id = (await wire.res("a"))["payload"]["runId"]
    await wire.ws.close()  # the client vanishes mid-run; the run goes on
    waiter = await open_wire(served.url)
    assert (await waiter.call("agent.wait", runId=run_id))["status"] == "ok"
    follow = await waiter.request("agent.follow", {"runId": run_id})
    assert follow["payload"]["status"] == "finished"
    final = await waiter.res(follow["id"])
    assert final["payload"]["text"] == "while you were away"
    replayed = [e["payload"] for e in waiter.events if e["event"] == "agent"]
    assert [e["seq"] for e in replayed] == list(range(1, len(replayed) + 1))
    history = await waiter.call("chat.history")
    assert history["messages"][-1]["content"] == "while you were away"
    await waiter.close()


async def test_slash_command_gets_one_reply_and_no_run(served: Served) -> None:
    wire = await open_wire(served.url)
    reply = await wire.request("agent", {"message": "/help", "idempotencyKey": "h"})
    assert reply["payload"]["status"] == "command" and "/new" in reply["payload"]["reply"]
    assert "runId" not in reply["payload"]
    assert (await wire.call("health"))["ok"] is True  # nothing else was pending on that id
    assert [e["event"] for e in wire.events if e["event"] not in wire.quiet] == []  # no run, so no agent events
    await wire.close()


async def test_concurrent_requests_on_one_connection(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(slow("a b c d e f", delay_per_chunk=0.2))
    wire = await open_wire(served.url)
    await wire.send({"type": "req", "id": "run", "method": "agent", "params": {"message": "x", "idempotencyKey": "c"}})
    run_id = (await wire.res("run"))["payload"]["runId"]
    # While the run streams, other requests on the same socket are answered (each in its own task).
    waits = await wire.request("agent.wait", {"runId": run_id, "timeoutMs": 20_000}, timeout=30)
    assert waits["payload"]["status"] == "ok"
    assert TOKEN not in str(wire.responses) + str(wire.events)
    await wire.close()


async def test_gateway_close_sends_shutdown_then_closes(served: Served) -> None:
    wire = await open_wire(served.url)
    await served.gateway.close()
    frame = await wire.recv()
    assert frame["type"] == "event" and frame["event"] == "shutdown"
    await asyncio.wait_for(wire.ws.wait_closed(), 10)
    assert wire.ws.close_code == 1001


async def test_a_client_that_stops_reading_never_stalls_the_run(claw_env: ClawEnv, make_served: MakeServed) -> None:
    served = await make_served(send_timeout_s=1.0)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", served.server.port))
    websocket = await connect(served.url, sock=sock, max_queue=1, max_size=None)
    watcher: Wire | None = None
    try:
        stuck = Wire(websocket)
        await stuck.send(connect_frame())
        await stuck.res("c1")
        claw_env.server.script(text("x" * 6_000_000, chunk=65_536))  # far more than the socket buffers hold
        params = {"message": "big", "idempotencyKey": "b"}
        await stuck.send({"type": "req", "id": "a", "method": "agent", "params": params})
        # From here on the stuck client reads nothing. The run still ends, promptly, and others see all of it.
        watcher = await open_wire(served.url)
        async with deadline(20, "the stuck client's run to become active"):
            while not served.gateway.runs.active():
                await asyncio.sleep(0.01)
        run_id = served.gateway.runs.active()[0].id
        follow = await watcher.request("agent.follow", {"runId": run_id})
        final = await watcher.res(follow["id"], timeout=60)
        assert final["payload"]["status"] == "ok" and len(final["payload"]["text"]) == 6_000_000
        deltas = "".join(e["payload"]["data"].get("delta", "") for e in watcher.events if e["event"] == "agent")
        assert len(deltas) == 6_000_000
        # The stuck connection was dropped (its socket took nothing for the whole send timeout), not waited for;
        # the watcher, which reads, however slowly the loop lets it, stays.
        async with deadline(20, "the stuck connection to be dropped"):
            while len(served.server.connections) != 1:
                await asyncio.sleep(0.05)
    finally:
        if watcher is not None:
            await watcher.close()
        await websocket.close()
        sock.close()


async def test_draining_refuses_new_runs_but_serves_the_rest(served: Served) -> None:
    import urllib.error
    import urllib.request

    wire = await open_wire(served.url)
    served.server.draining = True
    refused = await wire.request("agent", {"message": "late", "idempotencyKey": "late"})
    assert refused["error"] == {"code": "UNAVAILABLE", "message": "the gateway is shutting down"}
    assert (await wire.call("health"))["ok"] is True
    body = b'{"model": "claw/main", "messages": [{"role": "user", "content": "late"}]}'
    request = urllib.request.Request(
        f"http://127.0.0.1:{served.server.port}/v1/chat/completions",
        data=body,
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as http_refused:
        await asyncio.to_thread(urllib.request.urlopen, request, timeout=10)
    http_refused.value.close()  # the error holds the response and its socket
    assert http_refused.value.code == 503
    await wire.close()


async def test_a_session_subscription_takes_openclaws_short_key(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("for the subscriber"))
    watcher, sender = await open_wire(served.url), await open_wire(served.url)
    subscribed = await watcher.call("sessions.messages.subscribe", key="main")  # as openclaw-node sends it
    assert subscribed == {"key": "agent:main:main", "subscribed": "agent:main:main", "others": False}
    await sender.send({"type": "req", "id": "a", "method": "agent", "params": {"message": "hi", "idempotencyKey": "s"}})
    await sender.res("a")
    async with deadline(20, "the subscriber to see the run end"):
        while not any(e["event"] == "agent" and e["payload"]["data"].get("phase") == "end" for e in watcher.events):
            await watcher.recv()
    seen = [e["payload"] for e in watcher.events if e["event"] == "agent"]
    assert {e["sessionKey"] for e in seen} == {"agent:main:main"} and seen[-1]["data"]["text"] == "for the subscriber"
    bad = await watcher.request("sessions.messages.subscribe", {"key": 7})
    assert bad["error"]["code"] == "INVALID_REQUEST" and "key: a session key" in bad["error"]["message"]
    await asyncio.gather(watcher.close(), sender.close())


async def test_presence_events_tell_every_client_who_came_and_went(served: Served) -> None:
    first = await open_wire(served.url)
    first.quiet = ()  # this test reads them

    async def next_presence() -> dict[str, Any]:
        while (frame := await first.recv())["event"] != "presence":
            pass
        return frame

    mine = await next_presence()  # its own arrival
    second = await open_wire(served.url)
    joined = await next_presence()
    assert [len(f["payload"]["presence"]) for f in (mine, joined)] == [1, 2]
    assert joined["stateVersion"]["presence"] == mine["stateVersion"]["presence"] + 1
    await second.close()
    left = await next_presence()
    assert len(left["payload"]["presence"]) == 1
    assert left["stateVersion"]["presence"] == joined["stateVersion"]["presence"] + 1
    await first.close()


async def test_health_events_carry_the_health_snapshot(make_served: MakeServed) -> None:
    served = await make_served(health_interval_s=0.05)
    wire = await open_wire(served.url)
    wire.quiet = ()
    while (frame := await wire.recv())["event"] != "health":
        pass
    assert frame["payload"]["ok"] is True and frame["payload"]["defaultAgentId"] == "main"
    assert frame["stateVersion"]["health"] >= 1
    await wire.close()


def test_a_broadcast_payload_encoded_once_makes_the_same_frame() -> None:
    """A broadcast encodes its payload once for all connections; each frame must still be the same text."""
    payload = {"presence": [{"clientId": "tui", "ts": 1, "scopes": ["operator.read"], "note": 'ünï "q" <x>'}]}
    versions = {"presence": 3, "health": 1}
    for seq, state in ((7, versions), (8, None), (None, None)):
        assert event("presence", encoded(payload), seq, state) == event("presence", payload, seq, state)
    frame = json.loads(event("presence", encoded(payload), 9, versions))
    assert frame == {"type": "event", "event": "presence", "payload": payload, "seq": 9, "stateVersion": versions}
