"""OpenClaw's methods over the real WebSocket server: `chat.send` whose `chat` events reach every
connection, error details a claw client reads back, and the session methods' shapes through both
of claw's clients (so the CLI and the console, which go through them, read the same thing)."""

from __future__ import annotations

from typing import Any

from claw.client.protocol import GatewayClient
from tests.server.conftest import Served, Wire, connect_frame, open_wire
from tests.support.fixtures import ClawEnv
from tests.support.model_replies import text
from tests.support.model_server import tool_call


async def chat_until_final(wire: Wire, run_id: str) -> list[dict[str, Any]]:
    """The `chat` payloads of `run_id` that reach `wire`, up to its final one."""
    while True:
        frame = await wire.recv(timeout=20)
        payload = frame.get("payload") or {}
        is_chat = frame["type"] == "event" and frame["event"] == "chat"
        if is_chat and payload.get("state") == "final" and payload["runId"] == run_id:
            return [f["payload"] for f in wire.events if f["event"] == "chat" and f["payload"]["runId"] == run_id]


async def test_a_chat_send_with_tool_events_gets_the_runs_tool_calls(claw_env: ClawEnv, served: Served) -> None:
    """OpenClaw's TUI declares `tool-events` and draws tool cards from the `agent` events of the turns it
    sends; a connection that did not ask gets the `chat` events only."""
    (claw_env.home / "workspace" / "notes.md").write_text("milk\n", encoding="utf-8")
    claw_env.server.script(tool_call("read", {"path": "notes.md"}), text("It says milk."))
    tui = await open_wire(served.url, handshake=False)
    await tui.send(connect_frame(caps=["tool-events"]))
    assert (await tui.res("c1"))["ok"]
    bystander = await open_wire(served.url)
    await tui.call("chat.send", sessionKey="agent:main:main", message="read it", idempotencyKey="tools-run-1")
    for connection in (tui, bystander):
        await chat_until_final(connection, "tools-run-1")
    while not any(f["event"] == "agent" and f["payload"]["data"].get("phase") == "end" for f in tui.events):
        await tui.recv(timeout=20)
    tools = [f["payload"]["data"] for f in tui.events if f["event"] == "agent" and f["payload"]["stream"] == "tool"]
    assert [t["phase"] for t in tools if t["phase"] != "update"] == ["start", "result"]
    assert tools[0]["name"] == "read" and tools[0]["toolCallId"] and tools[-1]["isError"] is False
    assert not [f for f in bystander.events if f["event"] == "agent"]


async def test_chat_send_streams_chat_events_to_every_connection(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("Hello over chat.", chunk=5))
    wire, bystander = await open_wire(served.url), await open_wire(served.url)
    sent = await wire.call("chat.send", sessionKey="agent:main:main", message="hi", idempotencyKey="wire-run-1")
    assert sent == {"runId": "wire-run-1", "status": "started"}
    for connection in (wire, bystander):
        chat = await chat_until_final(connection, "wire-run-1")
        deltas = [c for c in chat if c["state"] == "delta"]
        assert "".join(d["deltaText"] for d in deltas) == "Hello over chat."
        assert chat[-1]["message"]["content"] == [{"type": "text", "text": "Hello over chat."}]
        assert [c["seq"] for c in chat] == list(range(1, len(chat) + 1))
    # the session events are for `sessions.subscribe`rs only, as OpenClaw sends them
    assert not [f for f in wire.events if f["event"] in ("sessions.changed", "session.message")]
    history = await wire.call("chat.history", sessionKey="agent:main:main")
    assert [m["role"] for m in history["messages"]] == ["user", "assistant"]
    assert all(isinstance(m["timestamp"], int) for m in history["messages"])
    await wire.close()
    await bystander.close()


async def test_session_methods_read_the_same_through_both_clients(claw_env: ClawEnv, any_client: GatewayClient) -> None:
    claw_env.server.script(text("first reply"))
    handle = await any_client.run("hello", session_key="agent:main:main")
    async for _event in any_client.events(handle.run_id):
        pass
    listed = await any_client.call("sessions.list")
    [row] = listed["sessions"]
    assert row["key"] == "agent:main:main" and row["lastMessagePreview"] == "first reply"
    assert isinstance(row["updatedAt"], int) and listed["count"] == 1
    assert (await any_client.call("sessions.describe", key="main"))["session"]["sessionId"] == row["sessionId"]
    patched = await any_client.call("sessions.patch", key="main", model="openai/gpt-4o")
    assert patched["entry"]["modelOverride"] == "openai/gpt-4o" and patched["resolved"]["modelProvider"] == "openai"
    commands = (await any_client.call("commands.list"))["commands"]
    assert {"new", "status", "stop"} <= {c["name"] for c in commands}
    agents = await any_client.call("agents.list")
    assert agents["defaultId"] == "main" and [a["id"] for a in agents["agents"]] == ["main"]
    reset = await any_client.call("sessions.reset", key="main")
    assert reset["entry"]["sessionId"] != row["sessionId"]
    assert (await any_client.call("sessions.delete", key="main"))["deleted"] is True
    assert (await any_client.call("sessions.list"))["sessions"] == []


def test_error_details_keep_the_exception_a_claw_client_raises() -> None:
    """INVALID_REQUEST (OpenClaw's code) with `details.code` still raises NotFoundError / ConfigError."""
    from claw.errors import ConfigError, NotFoundError, UsageError
    from claw.protocol.errors import INVALID_REQUEST, code_for, details_for, error_from

    for exc in (NotFoundError("no session x"), ConfigError("no model"), UsageError("bad")):
        sent = {"code": INVALID_REQUEST, "message": exc.message, "details": details_for(exc)}
        again = error_from(sent)
        assert type(again) is type(exc) and again.message == exc.message
        assert code_for(exc) == INVALID_REQUEST  # OpenClaw's code for all three; the details tell them apart


async def test_sessions_subscribe_on_a_connection_gets_the_session_events(claw_env: ClawEnv, served: Served) -> None:
    claw_env.server.script(text("noted"))
    wire, bystander = await open_wire(served.url), await open_wire(served.url)
    assert await wire.call("sessions.subscribe") == {"subscribed": True}
    listed = await wire.call("sessions.subscribe", limit=5)  # again, with the list
    assert listed["subscribed"] is True and "sessions" in listed["list"]
    await bystander.call("chat.send", sessionKey="agent:main:main", message="remember this", idempotencyKey="s-1")
    seen: set[str] = set()
    while not {"sessions.changed", "session.message"} <= seen:
        frame = await wire.recv(timeout=20)
        if frame["type"] == "event":
            seen.add(frame["event"])
    changed = [f["payload"] for f in wire.events if f["event"] == "sessions.changed"]
    assert any(p.get("sessionKey", p.get("key")) == "agent:main:main" for p in changed), changed
    assert await wire.call("sessions.unsubscribe") == {"subscribed": False}
    await bystander.call("health")  # reads whatever the bystander was sent before its answer
    assert not [f for f in bystander.events if f["event"] in ("sessions.changed", "session.message")]
    await wire.close()
    await bystander.close()
