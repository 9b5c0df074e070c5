"""Feishu's long connection (`mode = "websocket"`) against the fake platform's endpoint API and WebSocket: pings
and pongs, a message in → a reply out through the API, fragments joined, acks only once stored, redeliveries
dropped, the server closing (or going silent) → a reconnect with a backoff, bad credentials → a clear error,
and a streamed reply: one card patched at most once a second, the final text through the outbox."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from claw.channels.feishu.ws import MIN_WAIT, FeishuLongConnection
from claw.channels.host import Health
from tests.channels.conftest import Channels, Start, eventually
from tests.channels.feishu_fake import APP_ID, APP_SECRET, SERVICE_ID, FakeFeishuWs, _markdown, message_event
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow, text


@pytest.fixture
def feishu() -> Iterator[FakeFeishuWs]:
    fake = FakeFeishuWs()
    fake.start()
    yield fake
    fake.stop()


def ws_config(api: str, *, secret: str = APP_SECRET, **extra: Any) -> str:
    lines = ['mode = "websocket"', f'appId = "{APP_ID}"', f'appSecret = "{secret}"', f'apiBaseUrl = "{api}"']
    lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    return "[channels.feishu]\n" + "\n".join(lines) + "\n"


async def connected(start_channels: Start, feishu: FakeFeishuWs, **extra: Any) -> Channels:
    ch = await start_channels(ws_config(feishu.url, **extra))
    await eventually(lambda: feishu.connected and health(ch)["detail"] == "long connection: connected",
                     what="the long connection")  # fmt: skip
    return ch


def health(ch: Channels) -> dict[str, Any]:
    return ch.manager.health("feishu", "default").to_wire()


async def push(feishu: FakeFeishuWs, event: dict[str, Any], parts: int = 1, reverse: bool = False) -> Any:
    return await asyncio.to_thread(feishu.push, event, parts=parts, reverse=reverse)


async def test_a_p2p_message_is_answered_through_the_api_and_acked_after_the_commit(
    start_channels: Start, feishu: FakeFeishuWs, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("Hello over the **long connection**"))
    ch = await connected(start_channels, feishu, allowFrom=["ou_ada"])
    item = await push(feishu, message_event("hi there", message_id="om_ws1"))
    (reply,) = await eventually(feishu.replies, what="the reply")
    assert reply["parent"] == "om_ws1" and reply["markdown"] == "Hello over the **long connection**"
    assert claw_env.server.chat_requests[0].messages[-1]["content"] == "hi there"
    (ack,) = item.acks
    assert ack["code"] == 200 and ack["biz_rt"].isdigit()
    await ch.settled()
    assert [r["status"] for r in ch.rows("channel_inbox")] == ["done"] and len(feishu.replies()) == 1
    assert feishu.endpoint_calls == [{"AppID": APP_ID, "AppSecret": APP_SECRET}]


async def test_pings_carry_the_service_and_pongs_show_in_channel_status(
    start_channels: Start, feishu: FakeFeishuWs
) -> None:
    ch = await connected(start_channels, feishu)
    await eventually(lambda: len(feishu.pings) >= 2, what="two pings")
    (first_at, service, headers), (second_at, *_) = feishu.pings[:2]
    assert service == SERVICE_ID and headers == [("type", "ping")]
    assert second_at - first_at >= 0.9  # the PingInterval of 1 s from the ClientConfig
    await eventually(lambda: health(ch)["lastPollAt"], what="a pong recorded")
    status = await ch.call("channels.status")
    (account,) = [a for a in status["accounts"] if a["channel"] == "feishu"]
    assert account["state"] == "running" and account["detail"] == "long connection: connected"
    listed = await ch.call("channels.list")
    assert [a["mode"] for a in listed if a["channel"] == "feishu"] == ["websocket"]


async def test_an_event_in_fragments_is_joined_into_one_message(
    start_channels: Start, feishu: FakeFeishuWs, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("got it all"), text("backwards too"))
    ch = await connected(start_channels, feishu, allowFrom=["ou_ada"])
    long_text = "一段很长的消息 " * 200  # multi-byte characters split across fragment boundaries
    item = await push(feishu, message_event(long_text, message_id="om_frag"), parts=3)
    await eventually(feishu.replies, what="the reply")
    backwards = await push(feishu, message_event("in reverse " * 50, message_id="om_back"), parts=4, reverse=True)
    await eventually(lambda: len(feishu.replies()) == 2, what="the second reply")
    await ch.settled()
    asked = [r.messages[-1]["content"] for r in claw_env.server.chat_requests]
    assert asked == [long_text.strip(), ("in reverse " * 50).strip()]
    assert [a["code"] for a in item.acks] == [200] and [a["code"] for a in backwards.acks] == [200]
    assert len(ch.rows("channel_inbox")) == 2


async def test_an_event_pushed_again_after_a_lost_ack_runs_no_second_turn(
    start_channels: Start, feishu: FakeFeishuWs, claw_env: ClawEnv
) -> None:
    feishu.redeliver_after = 0.5
    ch = await connected(start_channels, feishu, allowFrom=["ou_ada"])
    feishu.lose_acks = True  # the platform never hears the acks, so it keeps pushing the event
    item = await push(feishu, message_event("only once", event_id="ev_lost_ack"))
    await eventually(lambda: item.sent >= 3, what="two redeliveries")
    feishu.lose_acks = False
    await eventually(lambda: item.acked, what="an ack that arrives")
    await ch.settled()
    assert len(claw_env.server.chat_requests) == 1 and len(feishu.replies()) == 1
    assert [r["status"] for r in ch.rows("channel_inbox")] == ["done"]


async def test_the_server_closing_means_a_reconnect_with_a_backoff_and_no_event_lost(
    start_channels: Start, feishu: FakeFeishuWs, claw_env: ClawEnv
) -> None:
    ch = await connected(start_channels, feishu, allowFrom=["ou_ada"])
    await asyncio.to_thread(feishu.close_connection)
    await eventually(lambda: not feishu.connected, what="the connection closed")
    await push(feishu, message_event("sent while you were away", message_id="om_away"))  # waits for a connection
    await eventually(lambda: len(feishu.connects) == 2, what="a reconnect")
    assert feishu.connects[1] - feishu.closes[0] >= MIN_WAIT * 0.9  # never at once, never in a tight loop
    assert len(feishu.endpoint_calls) == 2  # each connection asks the endpoint for a fresh URL
    (reply,) = await eventually(feishu.replies, what="the reply to the queued event")
    assert reply["parent"] == "om_away"
    await eventually(lambda: health(ch)["state"] == "running", what="running again")
    assert "connection closed" in (health(ch)["lastError"] or "")
    await ch.settled()
    assert len(claw_env.server.chat_requests) == 1


async def test_a_busy_endpoint_is_retried_with_a_backoff_capped_at_the_reconnect_interval(
    start_channels: Start, feishu: FakeFeishuWs
) -> None:
    ch = await connected(start_channels, feishu)
    with feishu.lock:
        feishu.endpoint_busy = 4
    await asyncio.to_thread(feishu.close_connection)
    await eventually(lambda: len(feishu.connects) == 2, timeout=15, what="a connection after the busy spell")
    retries = feishu.endpoint_times[1:]
    assert len(retries) == 5  # four "system busy", then the URL
    gaps = [b - a for a, b in zip([feishu.closes[0], *retries], retries, strict=False)]
    assert all(MIN_WAIT * 0.9 <= g <= 1.9 for g in gaps), gaps  # ReconnectInterval is 1 s: the ceiling
    await eventually(lambda: health(ch)["state"] == "running", what="running again")
    assert "system busy" in (health(ch)["lastError"] or "")


async def test_a_silent_connection_is_taken_as_dead_and_replaced(start_channels: Start, feishu: FakeFeishuWs) -> None:
    ch = await connected(start_channels, feishu)
    with feishu.lock:
        feishu.silent = True  # open, but no pong any more: a half-dead TCP connection
    await eventually(lambda: len(feishu.connects) == 2, timeout=15, what="a new connection")
    assert "nothing heard" in (health(ch)["lastError"] or "")


async def test_a_wrong_app_secret_is_a_clear_error_and_no_tight_loop(
    start_channels: Start, feishu: FakeFeishuWs
) -> None:
    ch = await start_channels(ws_config(feishu.url, secret="not-the-secret"))
    await eventually(lambda: health(ch)["state"] == "error", what="the error state")
    assert "app secret invalid" in health(ch)["lastError"]
    await asyncio.sleep(2.5)
    assert len(feishu.calls_to("tenant_access_token")) <= 3 and not feishu.connects
    assert "not-the-secret" not in json.dumps(await ch.call("channels.status"))


async def test_the_endpoint_refusing_the_app_stops_the_account_with_its_reason(
    start_channels: Start, feishu: FakeFeishuWs
) -> None:
    feishu.endpoint_refusal = (1000040351, "the app has not enabled long connection")
    ch = await start_channels(ws_config(feishu.url))
    await eventually(lambda: health(ch)["state"] == "error" and feishu.endpoint_calls, what="the error state")
    error = health(ch)["lastError"]
    assert "code 1000040351" in error and "not enabled long connection" in error
    await ch.account_ended("feishu")  # retrying cannot help: the account stopped, so no attempt can follow
    assert len(feishu.endpoint_calls) == 1 and not feishu.connects
    assert health(ch)["detail"] == "long connection stopped"


def test_the_backoff_honours_the_nonce_first_then_doubles_up_to_the_reconnect_interval() -> None:
    conn = FeishuLongConnection("http://127.0.0.1:9", "a", "s", lambda _: asyncio.sleep(0, 200), Health())
    conn.config.update({"ReconnectInterval": 8, "ReconnectNonce": 30, "PingInterval": 60, "ReconnectCount": -1})
    random.seed(7)
    first = [conn.backoff(0) for _ in range(200)]
    assert all(MIN_WAIT <= w <= 30 for w in first) and max(first) > 20  # spread over the nonce
    assert all(0.5 <= conn.backoff(1) <= 1.0 for _ in range(50))
    assert all(2.0 <= conn.backoff(3) <= 4.0 for _ in range(50))
    assert all(4.0 <= conn.backoff(12) <= 8.0 for _ in range(50))  # capped at ReconnectInterval
    conn.config.update({"ReconnectInterval": 0, "ReconnectNonce": 0})
    assert all(conn.backoff(n) >= MIN_WAIT for n in range(5))  # whatever the server says: no tight loop


async def test_streaming_patches_the_card_at_most_once_a_second_and_the_outbox_sends_the_final(
    start_channels: Start, feishu: FakeFeishuWs, claw_env: ClawEnv
) -> None:
    answer = "streamed " * 30
    claw_env.server.script(slow(answer, delay_per_chunk=0.05, chunk=5))  # ~60 deltas over ~3 s
    ch = await connected(start_channels, feishu, allowFrom=["ou_ada"], streaming=True)
    await push(feishu, message_event("stream it", message_id="om_stream"))
    await eventually(lambda: ch.rows("channel_outbox") and ch.rows("channel_outbox")[0]["status"] == "sent",
                     what="the final text sent")  # fmt: skip
    await ch.settled()
    (card,) = feishu.replies()  # one card: the placeholder, then patches
    assert card["parent"] == "om_stream" and card["markdown"] == answer.strip()
    (created,) = feishu.calls_to("/reply")
    patches = [c for c in feishu.calls if c.method == "PATCH"]
    assert {c.path for c in patches} == {f"im/v1/messages/{card['id']}"}
    shown = [_markdown(c.body["content"]) for c in patches]
    previews, final = shown[:-1], shown[-1]
    assert len(previews) >= 2 and all(p.endswith(" …") for p in previews)  # drafts carry the cursor
    assert final == answer.strip()  # the outbox's final text, without it
    times = [created.at] + [c.at for c in patches[:-1]]
    assert all(b - a >= 0.9 for a, b in zip(times, times[1:], strict=False))  # at most one patch a second
    (row,) = ch.rows("channel_outbox")
    assert row["status"] == "sent" and len(claw_env.server.chat_requests) == 1
