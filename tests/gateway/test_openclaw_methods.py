"""The methods and events OpenClaw's CLI, TUI and openclaw-node call, in OpenClaw's protocol-4 shapes,
through a real gateway (LocalClient, the scripted model server): rows keyed `key` with times in ms, the
object results, the lists of features claw has none of, and the `chat` / `sessions.changed` /
`session.message` events a run and the session methods publish on `Gateway.broadcasts`."""

from __future__ import annotations

import asyncio
import hashlib
import time
from typing import Any

import pytest

from claw.client.local import LocalClient
from claw.errors import NotFoundError, UsageError
from tests.gateway.conftest import collect, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_replies import error, hang, text

Events = list[tuple[str, dict[str, Any]]]


def listen(client: LocalClient) -> Events:
    seen: Events = []
    client.gateway.broadcasts.listen(lambda name, payload: seen.append((name, payload)))
    return seen


def named(events: Events, name: str) -> list[dict[str, Any]]:
    return [payload for event, payload in events if event == name]


async def until(events: Events, done: Any, timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while not done(events):
            await asyncio.sleep(0.01)


async def turn(client: LocalClient, message: str, key: str = "agent:main:main") -> None:
    await collect(client, (await client.run(message, session_key=key)).run_id)


async def test_sessions_list_is_an_object_of_rows_with_times_in_ms(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(text("Hello there."), text("Second."))
    before = int(time.time() * 1000)
    await turn(client, "hi")
    await turn(client, "other", "agent:main:side")
    listed = await client.call("sessions.list")
    assert listed["count"] == listed["totalCount"] == 2 and listed["hasMore"] is False and listed["nextOffset"] is None
    assert listed["defaults"] == {"model": "test-model", "contextTokens": 32_000}  # the window a turn budgets
    newest, older = listed["sessions"]  # newest first, as OpenClaw sorts by updatedAt
    assert newest["key"] == "agent:main:side" and older["key"] == "agent:main:main"
    assert older["lastMessagePreview"] == "Hello there." and older["messages"] == 2
    assert before - 5_000 <= older["updatedAt"] <= int(time.time() * 1000) and isinstance(older["createdAt"], int)
    assert older["model"] == "test-model" and older["modelOverride"] is None and older["kind"] == "direct"
    assert older["hasActiveRun"] is False and older["activeRunIds"] == [] and older["status"] == "idle"
    assert older["totalTokens"] == older["inputTokens"] + older["outputTokens"] > 0
    page = await client.call("sessions.list", limit=1)
    assert [r["key"] for r in page["sessions"]] == ["agent:main:side"] and page["hasMore"] and page["nextOffset"] == 1
    rest = await client.call("sessions.list", limit=1, offset=1)
    assert [r["key"] for r in rest["sessions"]] == ["agent:main:main"] and rest["hasMore"] is False
    found = await client.call("sessions.list", search="hello")
    assert [r["key"] for r in found["sessions"]] == ["agent:main:main"]
    assert (await client.call("sessions.list", activeOnly=True))["sessions"] == []


async def test_describe_patch_reset_and_delete_take_openclaws_key(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(text("one"), text("two"))
    await turn(client, "hi")
    await turn(client, "aside", "agent:main:side")
    events = listen(client)
    described = await client.call("sessions.describe", key="agent:main:main")
    assert described["session"]["key"] == "agent:main:main" and described["session"]["messages"] == 2
    assert await client.call("sessions.describe", key="agent:main:nobody") == {"session": None}

    patched = await client.call("sessions.patch", key="main", model="other/big-model")
    assert patched["ok"] is True and patched["key"] == "agent:main:main"
    assert patched["resolved"] == {"modelProvider": "other", "model": "big-model"}
    assert patched["entry"]["modelOverride"] == "other/big-model" and patched["entry"]["model"] == "big-model"
    cleared = await client.call("sessions.patch", key="main", model=None)
    assert cleared["entry"]["modelOverride"] is None and cleared["resolved"]["model"] == "test-model"

    old_id = described["session"]["sessionId"]
    reset = await client.call("sessions.reset", key="main")
    assert reset["ok"] is True and reset["entry"]["sessionId"] != old_id and reset["entry"]["messages"] == 0
    deleted = await client.call("sessions.delete", key="main")
    assert deleted["ok"] is True and deleted["deleted"] is True and deleted["key"] == "agent:main:main"
    assert deleted["archived"] == []  # the fresh session had no transcript yet
    side_id = (await client.call("sessions.describe", key="side"))["session"]["sessionId"]
    [archived] = (await client.call("sessions.delete", key="side"))["archived"]
    assert side_id in archived and "archive" in archived
    with pytest.raises(NotFoundError, match="no session agent:main:main"):
        await client.call("sessions.delete", key="main")

    changes = named(events, "sessions.changed")
    assert [c["reason"] for c in changes] == ["patch", "patch", "reset", "delete", "delete"]
    assert changes[0]["session"]["modelOverride"] == "other/big-model" and changes[0]["agentId"] == "main"
    assert changes[2]["session"]["sessionId"] == reset["entry"]["sessionId"]
    assert "session" not in changes[3] and changes[3]["sessionId"] == reset["entry"]["sessionId"]


async def test_agents_models_commands_and_config(claw_env: ClawEnv, workspace, make_client) -> None:
    write_config(
        claw_env.home,
        '[agents.list.ops]\nmodel.primary = "openai/gpt-4o-mini"\nmodel.fallbacks = ["local/llama"]\n\n'
        '[providers.openai]\napi_key = "sk-very-secret-value"\n\n[models."local/llama"]\ncontext_window = 8192\n',
    )
    client = make_client()
    agents = await client.call("agents.list")
    assert agents["defaultId"] == "main" and agents["mainKey"] == "main" and agents["scope"] == "per-sender"
    by_id = {a["id"]: a for a in agents["agents"]}
    assert list(by_id) == ["main", "ops"]
    assert by_id["ops"]["model"] == {"primary": "openai/gpt-4o-mini", "fallbacks": ["local/llama"]}
    assert by_id["main"]["workspace"].endswith("workspace")

    models = {m["name"]: m for m in (await client.call("models.list"))["models"]}
    assert set(models) == {"test-model", "openai/gpt-4o-mini", "local/llama"}
    assert models["openai/gpt-4o-mini"]["id"] == "gpt-4o-mini" and models["openai/gpt-4o-mini"]["provider"] == "openai"
    assert models["local/llama"]["contextWindow"] == 8192

    commands = (await client.call("commands.list"))["commands"]
    status = next(c for c in commands if c["name"] == "status")
    assert status["source"] == "native" and status["scope"] == "text" and status["description"]

    config = await client.call("config.get")
    raw = (claw_env.home / "config.toml").read_bytes()
    assert config["exists"] is True and config["valid"] is True and config["path"].endswith("config.toml")
    assert config["hash"] == hashlib.sha256(raw).hexdigest()
    assert config["config"]["providers"]["openai"]["api_key"] == "[redacted]"
    assert "sk-very-secret-value" not in repr(config)
    assert config["config"]["agents"]["list"]["ops"]["model"]["primary"] == "openai/gpt-4o-mini"


async def test_health_status_presence_and_the_features_claw_has_none_of(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(text("hi back"))
    await turn(client, "hi")
    health = await client.call("health")
    assert health["ok"] is True and health["defaultAgentId"] == "main" and isinstance(health["ts"], int)
    [main] = health["agents"]
    assert main["isDefault"] is True and main["heartbeat"]["enabled"] is False
    assert main["sessions"]["count"] == 1 and main["sessions"]["recent"][0]["key"] == "agent:main:main"
    assert main["sessions"]["recent"][0]["age"] >= 0 and health["sessions"] == main["sessions"]

    status = await client.call("status")
    assert status["runtimeVersion"] and status["uptimeMs"] >= 0 and status["activeRuns"] == 0
    assert status["heartbeat"] == {
        "defaultAgentId": "main",
        "agents": [{"agentId": "main", "enabled": False, "every": "off", "everyMs": None}],
    }
    assert status["sessions"]["count"] == 1 and status["sessions"]["recent"][0]["key"] == "agent:main:main"
    assert status["sessions"]["byAgent"][0]["agentId"] == "main" and status["sessions"]["byAgent"][0]["count"] == 1
    assert status["sessions"]["defaults"] == {"model": "test-model", "contextTokens": 32_000}

    [me] = await client.call("system-presence")
    assert me["mode"] == "gateway" and me["reason"] == "self" and isinstance(me["ts"], int)
    assert await client.call("last-heartbeat") is None
    assert await client.call("question.list") == {"questions": []}
    assert await client.call("taskSuggestions.list", sessionKey="agent:main:main") == {"suggestions": []}


async def test_sessions_patch_sets_the_thinking_and_verbose_levels_and_refuses_what_claw_lacks(
    client: LocalClient,
) -> None:
    """OpenClaw's TUI sends `/verbose on` and `/think high` as `sessions.patch`; the row carries them back
    (the TUI shows tool calls only when the row's verboseLevel is on or full). A setting claw has no such
    thing for is refused by name, so the TUI says it failed instead of "set"."""
    patched = await client.call("sessions.patch", key="main", verboseLevel="on", thinkingLevel="high")
    assert patched["entry"]["verboseLevel"] == "on" and patched["entry"]["thinkingLevel"] == "high"
    [row] = (await client.call("sessions.list"))["sessions"]
    assert row["verboseLevel"] == "on" and row["thinkingLevel"] == "high"
    said = await client.call("agent", sessionKey="agent:main:main", message="/think")
    assert "Thinking: high [this session]" in str(said)  # /think reads the level sessions.patch set
    cleared = await client.call("sessions.patch", key="main", verboseLevel=None, thinkingLevel=None)
    assert cleared["entry"]["verboseLevel"] is None and cleared["entry"]["thinkingLevel"] is None
    with pytest.raises(UsageError, match="verbose_level|verboseLevel"):
        await client.call("sessions.patch", key="main", verboseLevel="loud")
    with pytest.raises(UsageError, match="/think takes off, low, high or default"):
        await client.call("sessions.patch", key="main", thinkingLevel="xhigh", model="other/big", verboseLevel="on")
    unchanged = (await client.call("sessions.describe", key="main"))["session"]
    assert unchanged["modelOverride"] is None and unchanged["verboseLevel"] is None  # a refused patch changes nothing
    with pytest.raises(UsageError, match="claw has no per-session fastMode setting"):
        await client.call("sessions.patch", key="main", fastMode=True)
    assert (await client.call("sessions.describe", key="main"))["session"]["verboseLevel"] is None


async def test_chat_history_messages_carry_openclaws_timestamp(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(text("Stamped."))
    await turn(client, "when?")
    history = await client.call("chat.history", sessionKey="agent:main:main")
    stamps = [m["timestamp"] for m in history["messages"]]
    assert [m["role"] for m in history["messages"]] == ["user", "assistant"]
    assert all(isinstance(s, int) and abs(s - time.time() * 1000) < 60_000 for s in stamps)
    assert all(m["createdAt"] for m in history["messages"])  # the stored line, unchanged beside it


async def test_chat_send_streams_chat_events_and_session_messages(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(text("Hello there, friend.", chunk=6))
    events = listen(client)
    sent = await client.call("chat.send", sessionKey="agent:main:main", message="hi", idempotencyKey="tui-run-1")
    assert sent == {"runId": "tui-run-1", "status": "started"}  # the client's key is the run's id
    await until(events, lambda seen: any(p.get("state") == "final" for p in named(seen, "chat")))
    chat = named(events, "chat")
    deltas = [c for c in chat if c["state"] == "delta"]
    assert "".join(d["deltaText"] for d in deltas) == "Hello there, friend." and len(deltas) > 1
    assert deltas[-1]["message"]["content"] == [{"type": "text", "text": "Hello there, friend."}]  # cumulative
    final = chat[-1]
    assert final["state"] == "final" and final["runId"] == "tui-run-1" and final["sessionKey"] == "agent:main:main"
    assert final["message"]["role"] == "assistant" and final["message"]["content"][0]["text"] == "Hello there, friend."
    assert [c["seq"] for c in chat] == list(range(1, len(chat) + 1))
    await until(events, lambda seen: len(named(seen, "session.message")) == 2)
    messages = named(events, "session.message")
    assert [m["message"]["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["message"]["content"][0]["text"] == "hi" and messages[1]["session"]["messages"] == 2
    history = (await client.call("chat.history", sessionKey="agent:main:main"))["messages"]
    identities = [h["__openclaw"] for h in history]  # OpenClaw's TUI matches what it showed live to these
    assert [m["message"]["__openclaw"] for m in messages] == identities
    assert [i["seq"] for i in identities] == [1, 2] and {i["runId"] for i in identities} == {"tui-run-1"}
    changes = named(events, "sessions.changed")
    assert changes[0]["reason"] == "agent.run.started" and changes[-1]["reason"] == "agent.run.ended"
    assert changes[0]["session"]["status"] == "running" and changes[0]["session"]["activeRunIds"] == ["tui-run-1"]
    assert changes[-1]["session"]["status"] == "idle" and changes[-1]["session"]["hasActiveRun"] is False


async def test_chat_send_of_a_command_answers_with_one_chat_event(claw_env: ClawEnv, client: LocalClient) -> None:
    events = listen(client)
    sent = await client.call("chat.send", sessionKey="main", message="/help", idempotencyKey="cmd-1")
    assert sent["runId"] == "cmd-1" and sent["status"] == "ok" and "/stop" in sent["reply"]
    [reply] = named(events, "chat")
    assert reply["state"] == "final" and "/stop" in reply["message"]["content"][0]["text"]
    bad = await client.call("chat.send", sessionKey="main", message="/frobnicate", idempotencyKey="cmd-2")
    assert bad["status"] == "error"
    last = named(events, "chat")[-1]
    assert last["state"] == "error" and "unknown command" in last["errorMessage"]
    assert claw_env.server.chat_requests == []  # commands never reach the model
    with pytest.raises(UsageError, match="message"):
        await client.call("chat.send", sessionKey="main", message="")


async def test_chat_abort_and_a_failed_run_end_as_chat_events(claw_env: ClawEnv, client: LocalClient) -> None:
    events = listen(client)
    claw_env.server.script(hang("Partial "))
    sent = await client.call("chat.send", sessionKey="main", message="go on", idempotencyKey="long-1")
    await until(events, lambda seen: any(p["state"] == "delta" for p in named(seen, "chat")))
    with pytest.raises(UsageError, match="not a run of agent:main:other"):
        await client.call("chat.abort", sessionKey="agent:main:other", runId="long-1")
    aborted = await client.call("chat.abort", sessionKey="main")
    assert aborted == {"ok": True, "aborted": True, "runIds": [sent["runId"]]}
    await until(events, lambda seen: named(seen, "chat")[-1]["state"] == "aborted")
    assert named(events, "chat")[-1]["message"]["content"][0]["text"] == "Partial "
    assert await client.call("chat.abort", sessionKey="main") == {"ok": True, "aborted": False, "runIds": []}

    claw_env.server.script(error(400, "bad request for this model"))
    await client.call("chat.send", sessionKey="main", message="fail", idempotencyKey="fail-1")
    await until(events, lambda seen: named(seen, "chat")[-1]["state"] == "error")
    failed = named(events, "chat")[-1]
    assert failed["runId"] == "fail-1" and failed["errorKind"] == "unknown" and failed["errorMessage"]


async def test_nothing_is_built_while_nobody_listens(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(text("quiet"))
    await turn(client, "hi")
    assert client.gateway.broadcasts.listening is False
    assert client.gateway.broadcasts._chat._runs == {}  # no run's text kept behind


async def test_a_session_watch_gets_the_session_events_and_the_list(claw_env: ClawEnv, client: LocalClient) -> None:
    from claw.api.session_watch import SessionWatch

    sent: Events = []
    watch = SessionWatch(client.gateway, lambda name, payload: sent.append((name, payload)))
    assert await watch.subscribe({}) == {"subscribed": True} and watch.active
    claw_env.server.script(text("watched"))
    await client.call("chat.send", sessionKey="main", message="hi", idempotencyKey="watched-1")
    await until(sent, lambda seen: len(named(seen, "session.message")) == 2)
    assert {name for name, _ in sent} == {"sessions.changed", "session.message"}  # no `chat`: every client gets it
    answer = await watch.subscribe({"limit": 5})
    assert answer["subscribed"] is True and [r["key"] for r in answer["list"]["sessions"]] == ["agent:main:main"]
    assert watch.unsubscribe() == {"subscribed": False}
    count = len(sent)
    await client.call("sessions.patch", key="main", model="x/y")
    assert len(sent) == count and not watch.active  # closed: nothing more
    other = SessionWatch(client.gateway, lambda name, payload: sent.append((name, payload)))
    with pytest.raises(UsageError, match="limit"):
        await other.subscribe({"limit": 0})
    assert not other.active and client.gateway.broadcasts.listening is False


async def test_sessions_subscribe_without_a_connection_subscribes_nothing(
    claw_env: ClawEnv, client: LocalClient
) -> None:
    """OpenClaw answers `subscribed: false` to a caller with no connection; the list comes all the same."""
    claw_env.server.script(text("listed"))
    await turn(client, "hi")
    assert await client.call("sessions.subscribe") == {"subscribed": False}
    answer = await client.call("sessions.subscribe", limit=10)
    assert answer["subscribed"] is False and [r["key"] for r in answer["list"]["sessions"]] == ["agent:main:main"]
    assert await client.call("sessions.unsubscribe") == {"subscribed": False}
    with pytest.raises(UsageError, match="offset"):
        await client.call("sessions.subscribe", offset=-1)


async def test_a_listener_with_nobody_to_tell_costs_nothing(claw_env: ClawEnv, client: LocalClient) -> None:
    """The server listens with `active` = "a connection is open": while none is, no event is built."""
    open_connections: list[str] = []
    seen: Events = []
    client.gateway.broadcasts.listen(
        lambda name, payload: seen.append((name, payload)), active=lambda: bool(open_connections)
    )
    claw_env.server.script(text("unheard"), text("heard"))
    await turn(client, "nobody there")
    assert seen == [] and client.gateway.broadcasts._chat._runs == {}
    open_connections.append("conn-1")
    await turn(client, "somebody now")
    assert (
        named(seen, "chat")[-1]["state"] == "final"
        and named(seen, "chat")[-1]["message"]["content"][0]["text"] == "heard"
    )


async def test_sessions_list_without_an_agent_lists_every_agents(claw_env: ClawEnv, workspace, make_client) -> None:
    write_config(claw_env.home, "[agents.list.ops]\n")
    client = make_client()
    claw_env.server.script(text("main's"), text("ops'"))
    await turn(client, "hi")
    await collect(client, (await client.run("hi ops", agent_id="ops")).run_id)
    everyone = await client.call("sessions.list")
    assert [(r["key"], r["agentId"]) for r in everyone["sessions"]] == [
        ("agent:ops:main", "ops"),
        ("agent:main:main", "main"),
    ]
    assert [r["key"] for r in (await client.call("sessions.list", agentId="main"))["sessions"]] == ["agent:main:main"]


async def test_sessions_create_and_resolve_as_openclaws_tui_uses_them(claw_env: ClawEnv, client: LocalClient) -> None:
    created = await client.call("sessions.create", key="tui-1234", agentId="main", parentSessionKey="agent:main:main")
    assert created["ok"] is True and created["key"] == "agent:main:tui-1234" and created["sessionId"]
    assert created["entry"]["parentSessionKey"] == "agent:main:main" and "runStarted" not in created
    fresh = await client.call("sessions.create", model="other/model", displayName="Planning")
    assert fresh["key"].startswith("agent:main:") and fresh["entry"]["modelOverride"] == "other/model"
    assert fresh["entry"]["displayName"] == "Planning"
    claw_env.server.script(text("first words"))
    started = await client.call("sessions.create", key="with-turn", message="hello", idempotencyKey="create-1")
    assert started["runStarted"] is True and started["runId"] == "create-1"
    await collect(client, "create-1")
    assert (await client.call("sessions.describe", key="with-turn"))["session"]["messages"] == 2

    assert await client.call("sessions.resolve", key="tui-1234") == {"ok": True, "key": "agent:main:tui-1234"}
    by_id = await client.call("sessions.resolve", sessionId=created["sessionId"])
    assert by_id == {"ok": True, "key": "agent:main:tui-1234"}
    assert await client.call("sessions.resolve", key="nobody", allowMissing=True) == {"ok": False}
    with pytest.raises(NotFoundError, match="no session agent:main:nobody"):
        await client.call("sessions.resolve", key="nobody")


async def test_chat_send_refused_by_a_full_queue_says_so(claw_env: ClawEnv, client: LocalClient) -> None:
    await client.run("/queue cap:1 drop:new")
    events = listen(client)
    claw_env.server.script(hang("working"))
    await client.call("chat.send", sessionKey="main", message="first", idempotencyKey="busy-1")
    await until(events, lambda seen: any(p["state"] == "delta" for p in named(seen, "chat")))
    kept = await client.call("chat.send", sessionKey="main", message="kept", idempotencyKey="busy-2")
    refused = await client.call("chat.send", sessionKey="main", message="refused", idempotencyKey="busy-3")
    assert kept["status"] == "started" and refused["status"] == "dropped" and "queue full" in refused["reply"]
    [said] = [p for p in named(events, "chat") if p["runId"] == "busy-3"]
    assert said["state"] == "error" and "queue full" in said["errorMessage"]
    await client.call("chat.abort", sessionKey="main")


async def test_chat_history_reports_the_session_and_the_receipts_of_sent_turns(
    claw_env: ClawEnv, client: LocalClient
) -> None:
    """What OpenClaw's Control UI needs to take a turn it sent for done: `sessionInfo` (no run active, the last
    run named) and `inputReceipts` (its message consumed into the transcript); `chat.startup` is the same read."""
    claw_env.server.script(text("Done."))
    events = listen(client)
    await client.call("chat.send", sessionKey="agent:main:main", message="hi", idempotencyKey="ui-run-1")
    await until(events, lambda seen: any(p.get("state") == "final" for p in named(seen, "chat")))
    history = await client.call("chat.history", sessionKey="main", inputRunIds=["ui-run-1", "never-sent"])
    info = history["sessionInfo"]
    assert info["key"] == "agent:main:main" and info["sessionId"] == history["sessionId"]
    assert info["hasActiveRun"] is False and info["activeRunIds"] == [] and info["lastRunId"] == "ui-run-1"
    user_entry = history["messages"][0]
    assert user_entry["role"] == "user"
    assert history["inputReceipts"] == [
        {"runId": "ui-run-1", "state": "consumed", "consumedByEventId": user_entry["id"]}
    ]
    assert "inputReceipts" not in await client.call("chat.history", sessionKey="main")  # only when asked
    startup = await client.call("chat.startup", sessionKey="agent:main:main", limit=80, maxBytes=262144)
    assert startup["messages"] == history["messages"] and startup["sessionInfo"]["lastRunId"] == "ui-run-1"


async def test_a_turn_waiting_behind_another_has_a_pending_receipt(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(hang())
    events = listen(client)
    await client.call("chat.send", sessionKey="agent:main:main", message="wait", idempotencyKey="ui-run-2")
    await until(
        events, lambda seen: any(p.get("reason") == "agent.run.started" for p in named(seen, "sessions.changed"))
    )
    await client.call("chat.send", sessionKey="agent:main:main", message="and then", idempotencyKey="ui-run-3")
    history = await client.call("chat.history", sessionKey="main", inputRunIds=["ui-run-2", "ui-run-3"])
    assert history["sessionInfo"]["hasActiveRun"] is True and "ui-run-2" in history["sessionInfo"]["activeRunIds"]
    states = {r["runId"]: r["state"] for r in history["inputReceipts"]}
    assert states == {"ui-run-2": "consumed", "ui-run-3": "pending"}  # the second is queued, not yet in the transcript
    await client.call("chat.abort", sessionKey="main")
