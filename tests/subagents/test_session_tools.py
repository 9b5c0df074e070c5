"""sessions_list, sessions_history and sessions_send in real runs — own agent only unless configured."""

from __future__ import annotations

import json

from claw.client.local import LocalClient
from tests.gateway.conftest import collect, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import RecordedRequest, Reply, text, tool_call


async def call_tool(client: LocalClient, env: ClawEnv, name: str, args: dict, **run: str) -> dict:
    """Run one turn in which the model calls tool `name`; return its result event's data."""
    env.server.script(tool_call(name, args), text("done"))
    events = await collect(client, (await client.run(f"use {name}", **run)).run_id)
    return next(e.data for e in events if e.stream == "tool" and e.data["phase"] == "result")


async def test_list_shows_this_agents_sessions_with_kinds_and_filters(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(text("hello there"), text("hi group"))
    await collect(client, (await client.run("hi", session_key="agent:main:telegram:direct:42")).run_id)
    await collect(client, (await client.run("hi", session_key="agent:main:telegram:group:7")).run_id)

    found = await call_tool(client, claw_env, "sessions_list", {})
    rows = json.loads(found["result"])["sessions"]
    kinds = {r["sessionKey"]: r["kind"] for r in rows}
    assert kinds == {
        "agent:main:main": "main",
        "agent:main:telegram:direct:42": "direct",
        "agent:main:telegram:group:7": "group",
    }
    direct = next(r for r in rows if r["kind"] == "direct")
    assert direct["lastMessage"] == "hello there" and direct["messages"] == 2
    assert next(r for r in rows if r["kind"] == "main")["running"] is True  # the caller's own turn

    only_groups = await call_tool(client, claw_env, "sessions_list", {"kinds": ["group"], "limit": 5})
    assert [r["sessionKey"] for r in json.loads(only_groups["result"])["sessions"]] == ["agent:main:telegram:group:7"]
    one = await call_tool(client, claw_env, "sessions_list", {"limit": 1, "activeMinutes": 5})
    assert json.loads(one["result"])["count"] == 1
    bad = await call_tool(client, claw_env, "sessions_list", {"kinds": ["nonsense"]})
    assert bad["isError"] and "'kinds' must be a list of" in bad["result"]


async def test_history_is_sanitised_and_bounded(claw_env: ClawEnv, client: LocalClient) -> None:
    huge = "x" * 9000
    claw_env.server.script(tool_call("read", {"path": "SOUL.md"}), text(huge), text("short\x07 reply"))
    other = "agent:main:work"
    await collect(client, (await client.run("read your soul", session_key=other)).run_id)
    await collect(client, (await client.run("again", session_key=other)).run_id)

    found = await call_tool(client, claw_env, "sessions_history", {"sessionKey": "work"})
    reply = json.loads(found["result"])
    rows = reply["messages"]
    assert reply["sessionKey"] == other
    assert [r["role"] for r in rows] == ["user", "assistant", "user", "assistant"]  # no tool rows, no bare calls
    assert rows[1]["content"] == "[sessions_history omitted: message too large]"
    assert rows[3]["content"] == "short reply"  # control characters removed
    assert set(rows[0]) == {"role", "content", "createdAt"}  # no run ids, models or display copies

    with_tools = await call_tool(client, claw_env, "sessions_history", {"sessionKey": other, "includeTools": True})
    rows = json.loads(with_tools["result"])["messages"]
    assert [r["role"] for r in rows][:3] == ["user", "assistant", "tool"]
    assert rows[1]["toolCalls"] == ["read"] and rows[2]["name"] == "read" and rows[2]["isError"] is False
    last_two = await call_tool(client, claw_env, "sessions_history", {"sessionKey": other, "limit": 2})
    assert [r["content"] for r in json.loads(last_two["result"])["messages"]] == ["again", "short reply"]
    missing = await call_tool(client, claw_env, "sessions_history", {"sessionKey": "agent:main:nowhere"})
    assert missing["isError"] and "no session agent:main:nowhere" in missing["result"]


async def test_send_waits_for_the_reply_or_fires_and_forgets(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(text("ready"))
    await collect(client, (await client.run("be ready", session_key="agent:main:helper")).run_id)

    def helper(request: RecordedRequest) -> Reply:
        last = request.messages[-1]["content"]
        if last.startswith("[Message from session agent:main:main]"):
            return text("pong from helper")
        return text("unexpected")

    claw_env.server.script(tool_call("sessions_send", {"sessionKey": "agent:main:helper", "message": "ping"}))
    claw_env.server.script(helper, text("helper said pong"))
    events = await collect(client, (await client.run("ask the helper")).run_id)
    result = next(e.data for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert json.loads(result["result"])["reply"] == "pong from helper"
    assert events[-1].data["text"] == "helper said pong"
    helper_history = await client.call("chat.history", sessionKey="agent:main:helper")
    assert helper_history["messages"][-2]["content"] == "[Message from session agent:main:main]\nping"

    # Without a wait the helper's run and this run's next turn reach the model in either order,
    # so each scripted reply is chosen by whose request it is, not by its place in the queue.
    def by_session(request: RecordedRequest) -> Reply:
        last = request.messages[-1].get("content") or ""
        return text("helper got it") if last.startswith("[Message from session agent:main:main]") else text("sent")

    claw_env.server.script(
        tool_call("sessions_send", {"sessionKey": "helper", "message": "no wait", "timeoutSeconds": 0}),
        by_session,
        by_session,
    )
    events = await collect(client, (await client.run("tell the helper")).run_id)
    result = json.loads(next(e.data for e in events if e.stream == "tool" and e.data["phase"] == "result")["result"])
    assert result["status"] == "accepted"
    assert (await client.call("agent.wait", runId=result["runId"], timeoutMs=20_000))["text"] == "helper got it"

    own = await call_tool(client, claw_env, "sessions_send", {"sessionKey": "main", "message": "me?"})
    assert own["isError"] and "that is this session" in own["result"]


async def test_other_agents_are_out_of_reach_unless_allowed(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, "[agents.list.ops]\n")
    client: LocalClient = make_client()
    claw_env.server.script(text("ops secret"))
    await collect(client, (await client.run("hi ops", agent_id="ops")).run_id)

    for name, args in (
        ("sessions_history", {"sessionKey": "agent:ops:main"}),
        ("sessions_send", {"sessionKey": "agent:ops:main", "message": "hi"}),
    ):
        refused = await call_tool(client, claw_env, name, args)
        assert refused["isError"], refused
        assert "agent 'ops' is not allowed for agent 'main'" in refused["result"]
        assert "agents.defaults.tools.sessions.allowAgents" in refused["result"]
    listed = await call_tool(client, claw_env, "sessions_list", {})
    assert all(r["sessionKey"].startswith("agent:main:") for r in json.loads(listed["result"])["sessions"])
    await client.close()

    write_config(claw_env.home, '[agents.list.ops]\n\n[agents.defaults.tools.sessions]\nallowAgents = ["ops"]\n')
    client = make_client()
    allowed = await call_tool(client, claw_env, "sessions_history", {"sessionKey": "agent:ops:main"})
    assert not allowed["isError"] and "ops secret" in allowed["result"]
    listed = await call_tool(client, claw_env, "sessions_list", {})
    assert "agent:ops:main" in {r["sessionKey"] for r in json.loads(listed["result"])["sessions"]}


async def test_tree_visibility_limits_a_session_to_itself_and_its_children(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env.home, '[agents.defaults.tools.sessions]\nvisibility = "tree"\n')
    client: LocalClient = make_client()
    claw_env.server.script(text("private"))
    await collect(client, (await client.run("hi", session_key="agent:main:other")).run_id)
    refused = await call_tool(client, claw_env, "sessions_history", {"sessionKey": "agent:main:other"})
    assert refused["isError"] and "not this session or one it spawned" in refused["result"]
    listed = await call_tool(client, claw_env, "sessions_list", {})
    assert [r["sessionKey"] for r in json.loads(listed["result"])["sessions"]] == ["agent:main:main"]
