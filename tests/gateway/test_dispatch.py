"""Dispatch: dedupe, idempotency, slash commands, routing and session keys."""

from __future__ import annotations

from claw.client.local import LocalClient
from claw.vocab.msg_context import MsgContext
from tests.gateway.conftest import collect, phases
from tests.support.fixtures import ClawEnv
from tests.support.model_server import error, text


async def test_redelivered_message_is_dropped(claw_env: ClawEnv, client: LocalClient) -> None:
    gw = client.gateway
    ctx = MsgContext(body="hello", channel="webhook", peer_id="u1", message_id="m-1", chat_type="direct")
    first = await gw.dispatch(ctx)
    again = await gw.dispatch(ctx)
    assert first.status == "accepted" and again.status == "duplicate"
    other = await gw.dispatch(MsgContext(body="hello", channel="webhook", peer_id="u1", message_id="m-2"))
    assert other.status == "accepted"
    await collect(client, first.run_id)
    await collect(client, other.run_id)
    assert len(claw_env.server.chat_requests) == 2


async def test_idempotency_key_never_starts_a_second_run(claw_env: ClawEnv, client: LocalClient) -> None:
    a = await client.run("once", idempotency_key="k1")
    b = await client.run("once", idempotency_key="k1")
    assert a.run_id == b.run_id
    await collect(client, a.run_id)
    assert len(claw_env.server.chat_requests) == 1


async def test_commands_never_reach_the_model(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(text("first"))
    await collect(client, (await client.run("hello")).run_id)
    status = await client.run("/status")
    assert status.status == "command" and status.run_id is None
    assert "agent:main:main" in status.reply and "Messages: 2" in status.reply and "test-model" in status.reply
    help_reply = await client.run("/help")
    assert "/stop" in help_reply.reply and "/new" in help_reply.reply
    old_id = (await client.call("sessions.list"))["sessions"][0]["sessionId"]
    new = await client.run("/new")
    assert "New session started" in new.reply
    rows = (await client.call("sessions.list"))["sessions"]
    assert rows[0]["sessionId"] != old_id and rows[0]["messages"] == 0
    assert len(claw_env.server.chat_requests) == 1
    # an unknown slash word is an error, not a question for the model; a path is a message
    unknown = await client.run("/frobnicate now")
    assert unknown.status == "command" and unknown.error == "unknown-command" and unknown.run_id is None
    assert unknown.reply == "unknown command /frobnicate — /help lists them"
    assert len(claw_env.server.chat_requests) == 1
    path = await client.run("/usr/bin/frobnicate is missing")
    assert path.status == "accepted"
    await collect(client, path.run_id)
    assert claw_env.server.last_request().body["messages"][-1]["content"] == "/usr/bin/frobnicate is missing"


async def test_channel_session_keys_follow_dm_scope(claw_env: ClawEnv, make_client) -> None:
    (claw_env.home / "config.toml").write_text('[session]\ndmScope = "per-channel-peer"\n')
    client = make_client()
    result = await client.gateway.dispatch(MsgContext(body="hi", channel="Telegram", peer_id="42"))
    assert result.session_key == "agent:main:telegram:direct:42"
    group = await client.gateway.dispatch(
        MsgContext(body="hi", channel="telegram", chat_type="group", group_id="-100", thread_id="7")
    )
    assert group.session_key == "agent:main:telegram:group:-100:thread:7"
    await collect(client, result.run_id)
    await collect(client, group.run_id)


async def test_model_error_ends_the_run_with_error(claw_env: ClawEnv, client: LocalClient) -> None:
    claw_env.server.script(error(400, "bad request: unsupported parameter"))
    events = await collect(client, (await client.run("x")).run_id)
    assert phases(events) == ["accepted", "start", "error"]
    assert "unsupported parameter" in events[-1].data["message"]
    history = await client.call("chat.history")
    assert history["messages"][0]["content"] == "x"  # the user's message is never lost
