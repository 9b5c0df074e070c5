"""DingTalk's Stream mode end to end against the fake platform: the connection opened with the app's credentials
and the robot topic, messages acknowledged only after the inbox commit, pings answered, redeliveries dropped,
and a new connection after a `disconnect`, after the socket dies, and after failures, with backoff."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from tests.channels.conftest import Channels, Start, eventually
from tests.channels.dingtalk.test_dingtalk_channel import dingtalk_config
from tests.channels.dingtalk_fake import CLIENT_ID, CLIENT_SECRET, ROBOT_TOPIC, FakeDingTalk
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow, text


@pytest.fixture
def dingtalk() -> Iterator[FakeDingTalk]:
    fake = FakeDingTalk()
    fake.start()
    yield fake
    fake.stop()


async def connected(start_channels: Start, fake: FakeDingTalk, **extra: Any) -> Channels:
    ch = await start_channels(dingtalk_config(fake, mode="stream", **extra))
    await eventually(fake.connected, what="the stream connection")
    await eventually(lambda: ch.manager.health("dingtalk", "default").state == "running", what="running")
    return ch


def inbox_count(ch: Channels) -> int:
    with sqlite3.connect(ch.gateway.paths.gateway_db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM channel_inbox").fetchone()[0])


async def test_a_message_is_acknowledged_after_the_inbox_commit_and_answered(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("Hello Ada"))
    ch = await connected(start_channels, dingtalk, allowFrom=["staff-ada"])
    (opened,) = dingtalk.opens
    assert (opened["clientId"], opened["clientSecret"]) == (CLIENT_ID, CLIENT_SECRET)
    assert {"type": "CALLBACK", "topic": ROBOT_TOPIC} in opened["subscriptions"]
    stored_at_ack: list[int] = []
    dingtalk.on_ack = lambda _mid: stored_at_ack.append(inbox_count(ch))
    message_id = dingtalk.push(dingtalk.message("hi there"))
    (ack,) = await eventually(lambda: dingtalk.acks, what="the ack")
    assert stored_at_ack == [1]  # the message was in the inbox before DingTalk heard back
    assert ack["code"] == 200 and ack["message"] == "OK" and json.loads(ack["data"]) == {"response": None}
    assert ack["headers"] == {"contentType": "application/json", "messageId": message_id}
    (reply,) = await eventually(dingtalk.replies, what="the reply")
    assert (reply["via"], reply["to"], reply["text"]) == ("webhook", "staff-ada", "Hello Ada")
    assert claw_env.server.chat_requests[0].messages[-1]["content"] == "hi there"
    assert dingtalk.pending == {}


async def test_pings_are_answered_with_their_data_and_shown_as_the_last_poll(
    start_channels: Start, dingtalk: FakeDingTalk
) -> None:
    ch = await connected(start_channels, dingtalk, allowFrom=["staff-ada"])
    opaque = dingtalk.ping()
    (pong,) = await eventually(lambda: dingtalk.pongs, what="the pong")
    assert pong["code"] == 200 and json.loads(pong["data"]) == {"opaque": opaque}
    assert pong["headers"]["topic"] == "ping"
    (account,) = (await ch.call("channels.status"))["accounts"]
    assert account["state"] == "running" and account["detail"] == "stream connected" and account["lastPollAt"]
    (listed,) = await ch.call("channels.list")
    assert listed["mode"] == "stream" and "path" not in listed


async def test_a_group_mention_is_answered_and_a_redelivery_runs_no_second_turn(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("Hi team"))
    ch = await connected(start_channels, dingtalk, toml='groups = { "cid-team" = { requireMention = true } }')
    msg = dingtalk.message("@Claw hello", conversation_type="2", conversation_id="cid-team", at=True)
    dingtalk.push(msg)
    dingtalk.push(msg)  # DingTalk delivers the same msgId again (a retry under another messageId)
    await eventually(lambda: len(dingtalk.acks) == 2, what="both acknowledged")
    await eventually(dingtalk.replies, what="the reply")
    await ch.settled()
    assert [(r["via"], r["to"]) for r in dingtalk.replies()] == [("webhook", "cid-team")]
    assert len(claw_env.server.chat_requests) == 1 and inbox_count(ch) == 1
    rows = ch.rows("channel_inbox")
    assert rows[0]["session_key"] == "agent:main:dingtalk:group:cid-team"


async def test_disconnect_opens_a_new_connection_with_a_new_ticket(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("after the move"))
    ch = await connected(start_channels, dingtalk, allowFrom=["staff-ada"])
    dingtalk.disconnect(close_after=5.0)  # the client leaves before the server closes
    await eventually(lambda: dingtalk.connections == 2 and dingtalk.connected(), what="the second connection")
    assert len(dingtalk.opens) == 2  # a fresh ticket for it
    dingtalk.push(dingtalk.message("still there?"))
    await eventually(dingtalk.replies, what="the reply on the new connection")
    await ch.settled()
    assert ch.manager.health("dingtalk", "default").state == "running"


async def test_a_dead_socket_is_replaced_and_an_unacknowledged_message_arrives_once(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("only once"))
    ch = await connected(start_channels, dingtalk, allowFrom=["staff-ada"])
    dingtalk.lose_acks = 1  # the ack never reaches DingTalk: it will deliver the message again
    message_id = dingtalk.push(dingtalk.message("are you there?"))
    await eventually(lambda: inbox_count(ch) == 1, what="the message stored")
    dingtalk.drop()
    await eventually(lambda: dingtalk.connections == 2, what="a new connection")
    await eventually(lambda: message_id not in dingtalk.pending, what="the redelivery acknowledged")
    await eventually(dingtalk.replies, what="the reply")
    await ch.settled()
    assert dingtalk.deliveries == [message_id, message_id]
    assert [r["text"] for r in dingtalk.replies()] == ["only once"] and len(claw_env.server.chat_requests) == 1


async def test_failing_connection_opens_back_off_with_jitter(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    dingtalk.fail("connections/open", 503, {"code": "ServiceUnavailable", "message": "try later"}, times=2)
    ch = await start_channels(dingtalk_config(dingtalk, mode="stream", allowFrom=["staff-ada"]))
    await eventually(lambda: len(dingtalk.calls_to("connections/open")) == 1, what="the first try")
    health = ch.manager.health("dingtalk", "default")
    await eventually(lambda: health.state == "reconnecting", what="reconnecting")
    assert "ServiceUnavailable" in (health.last_error or "") and CLIENT_SECRET not in (health.last_error or "")
    await eventually(dingtalk.connected, timeout=15, what="connected after the failures")
    times = [c.at for c in dingtalk.calls_to("connections/open")]
    gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
    assert len(gaps) == 2 and gaps[0] >= 1.0 and gaps[1] >= 2.0, gaps  # 1-2 s, then 2-4 s: never a tight loop
    await eventually(lambda: health.state == "running", what="running again")


async def test_wrong_credentials_are_reported_without_the_secret(start_channels: Start, dingtalk: FakeDingTalk) -> None:
    config = dingtalk_config(dingtalk, mode="stream").replace(CLIENT_SECRET, "wrong-secret")
    ch = await start_channels(config)
    health = ch.manager.health("dingtalk", "default")
    await eventually(lambda: health.last_error, what="the error")
    assert "401" in (health.last_error or "") and "wrong-secret" not in (health.last_error or "")
    assert len(dingtalk.calls_to("connections/open")) == 1 and not dingtalk.connected()


async def test_without_a_card_template_a_streamed_reply_is_one_message(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    answer = "One answer, written token by token over about a second and a half."
    claw_env.server.script(slow(answer, 0.1, chunk=4))
    ch = await connected(start_channels, dingtalk, allowFrom=["staff-ada"])
    dingtalk.push(dingtalk.message("take your time"))
    await eventually(dingtalk.replies, what="the reply")
    await ch.settled()
    assert [r["text"] for r in dingtalk.replies()] == [answer] and dingtalk.cards == {}


async def test_with_a_card_template_the_reply_streams_into_one_card_that_is_finalized(
    start_channels: Start, dingtalk: FakeDingTalk, claw_env: ClawEnv
) -> None:
    # It ends like a preview (" …"): the outbox's final edit, not the text, tells the card to close.
    answer = "A longer answer that arrives in many small pieces, so the card is updated while it is written …"
    claw_env.server.script(slow(answer, 0.1, chunk=4))
    ch = await connected(start_channels, dingtalk, cardTemplateId="tpl.schema", toml='groups = { "*" = {} }')
    (listed,) = await ch.call("channels.list")
    assert listed["streaming"] is True
    dingtalk.push(dingtalk.message("stream it", conversation_type="2", conversation_id="cid-team", at=True))
    await eventually(lambda: any(c["finalized"] for c in dingtalk.cards.values()), what="the finalized card")
    await ch.settled()
    ((track, card),) = dingtalk.cards.items()
    assert card["template"] == "tpl.schema" and card["space"] == "dtv1.card//IM_GROUP.cid-team"
    assert card["params"] == {"content": answer, "flowStatus": "3"}
    assert card["frames"][-1] == answer and len(card["frames"]) >= 2  # previews, then the final text
    assert all(f.endswith(" …") for f in card["frames"][:-1])
    assert dingtalk.replies() == []  # no markdown message besides the card: never a message per token
    (row,) = ch.rows("channel_outbox")
    assert row["status"] == "sent" and row["edit_message_id"] == track


async def test_a_refused_handshake_is_retried_with_a_new_ticket_and_the_ticket_is_not_shown(
    start_channels: Start, dingtalk: FakeDingTalk
) -> None:
    dingtalk.refuse_tickets = 1
    ch = await start_channels(dingtalk_config(dingtalk, mode="stream", allowFrom=["staff-ada"]))
    health = ch.manager.health("dingtalk", "default")
    await eventually(lambda: health.last_error, what="the refusal")
    assert "401" in (health.last_error or "") and dingtalk.issued[0] not in (health.last_error or "")
    await eventually(dingtalk.connected, what="connected with the second ticket")
    assert len(dingtalk.issued) == 2 and dingtalk.connections == 1
