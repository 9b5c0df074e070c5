"""One message end to end through the in-process gateway, against the scripted model server."""

from __future__ import annotations

import json

from claw.client.local import LocalClient
from tests.gateway.conftest import collect, phases, text_of
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call, tool_calls


async def test_reply_streams_and_is_persisted(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(text("Hello there, friend."))
    handle = await client.run("hi")
    assert handle.status == "accepted" and handle.run_id
    events = await collect(client, handle.run_id)

    assert phases(events) == ["accepted", "start", "end"]
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert text_of(events) == "Hello there, friend."
    end = events[-1]
    assert end.data["text"] == "Hello there, friend."
    assert end.data["usage"]["input"] > 0
    assert all(e.session_key == "agent:main:main" for e in events)

    request = claw_env.server.last_request()
    assert request.body["model"] == "test-model"
    assert request.body["messages"][0]["role"] == "system"
    assert "You are Testy" in request.body["messages"][0]["content"]
    assert request.body["messages"][-1] == {"role": "user", "content": "hi"}

    history = await client.call("chat.history", sessionKey="agent:main:main")
    assert [(m["role"], m["content"]) for m in history["messages"]] == [
        ("user", "hi"),
        ("assistant", "Hello there, friend."),
    ]
    rows = (await client.call("sessions.list"))["sessions"]
    assert rows[0]["key"] == "agent:main:main" and rows[0]["messages"] == 2


async def test_tool_calls_run_and_feed_back(claw_env: ClawEnv, client: LocalClient, workspace) -> None:
    (workspace / "notes.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    claw_env.server.script(
        tool_calls([("read", {"path": "notes.txt"}), ("read", {"path": "SOUL.md"})], text="Let me look."),
        tool_call("write", {"path": "out/summary.md", "content": "two files"}),
        text("Done: alpha, beta."),
    )
    handle = await client.run("summarise notes.txt")
    events = await collect(client, handle.run_id)

    tool_events = [(e.data["phase"], e.data["name"]) for e in events if e.stream == "tool"]
    assert tool_events == [
        ("start", "read"),
        ("result", "read"),
        ("start", "read"),
        ("result", "read"),
        ("start", "write"),
        ("result", "write"),
    ]
    first_result = next(e for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert "alpha" in first_result.data["result"] and first_result.data["isError"] is False
    assert events[-1].data["text"] == "Done: alpha, beta."
    assert (workspace / "out" / "summary.md").read_text() == "two files"

    second = claw_env.server.chat_requests[1].body["messages"]
    assistant = second[-3]
    assert assistant["role"] == "assistant" and len(assistant["tool_calls"]) == 2
    assert [m["role"] for m in second[-2:]] == ["tool", "tool"]
    assert second[-2]["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert "alpha" in second[-2]["content"]

    history = await client.call("chat.history")
    roles = [m["role"] for m in history["messages"]]
    assert roles == ["user", "assistant", "tool", "tool", "assistant", "tool", "assistant"]
    assert json.loads(history["messages"][1]["toolCalls"][0]["arguments"]) == {"path": "notes.txt"}


async def test_tool_errors_reach_the_model_not_the_user(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(tool_call("read", {"path": "../../etc/passwd"}), text("I cannot read that."))
    handle = await client.run("read /etc/passwd")
    events = await collect(client, handle.run_id)
    result = next(e for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert result.data["isError"] is True and "path escapes workspace" in result.data["result"]
    assert phases(events)[-1] == "end"
    assert "path escapes workspace" in claw_env.server.chat_requests[1].body["messages"][-1]["content"]
