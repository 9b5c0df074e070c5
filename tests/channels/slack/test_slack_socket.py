"""Slack Socket Mode end to end against the fake Slack: `apps.connections.open` with the app-level token,
every envelope acknowledged only once its message is in the inbox, an unacknowledged one redelivered and
stored once, and a new connection after Slack's `disconnect` and after silence (no pong), with backoff."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.channels.conftest import Start, _toml, eventually
from tests.channels.slack_fake import APP_TOKEN, BOT_TOKEN, Envelope, FakeSlack, mention, message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    fake = FakeSlack(redeliver_after=1.0)
    fake.start()
    yield fake
    fake.stop()


def socket_config(fake: FakeSlack, **extra: Any) -> str:
    lines = ['mode = "socket"', f'botToken = "{BOT_TOKEN}"', f'appToken = "{APP_TOKEN}"',
             f'apiBaseUrl = "{fake.api_base}"', "pingIntervalSeconds = 0.5", "maxBackoffSeconds = 2"]  # fmt: skip
    lines += [f"{k} = {_toml(v)}" for k, v in extra.items()]
    return "[channels.slack]\n" + "\n".join(lines) + "\n"


def replies(fake: FakeSlack) -> list[str]:
    return [p.params["text"] for p in fake.posts()]


async def connected(fake: FakeSlack, n: int = 1) -> None:
    await eventually(lambda: fake.hellos >= n and fake.connected, what=f"Socket Mode connection {n}")


def stored_keys(home: Path) -> set[str]:
    with sqlite3.connect(home / "gateway.db") as conn:
        return {key for (key,) in conn.execute("SELECT dedupe_key FROM channel_inbox")}


async def test_each_envelope_is_acknowledged_only_after_its_message_is_committed(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("over the socket"))
    seen_at_ack: list[bool] = []

    def check(envelope: Envelope) -> None:  # runs as the ack arrives: the message must already be stored
        event = envelope.payload["event"]
        seen_at_ack.append(f"slack|default|{event['channel']}|{event['ts']}" in stored_keys(claw_env.home))

    slack.on_ack = check
    ch = await start_channels(socket_config(slack, allowFrom=["U0000042"]))
    await connected(slack)
    (opened,) = slack.calls_of("apps.connections.open")
    assert opened.auth == f"Bearer {APP_TOKEN}"  # the app-level token, not the bot token
    envelope_id = slack.push(message("hello over the socket"))
    await eventually(lambda: replies(slack), what="the reply")
    await ch.settled()
    assert replies(slack) == ["over the socket"] and seen_at_ack == [True]
    assert slack.envelopes[envelope_id].attempts == 1  # acknowledged in time: never redelivered
    (account,) = (await ch.call("channels.status"))["accounts"]
    assert account["state"] == "running" and account["detail"] == "connected (socket mode)"


async def test_a_redelivered_envelope_and_a_mention_seen_twice_run_one_turn(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("just once"))
    config = socket_config(slack, allowFrom=["U0000042"]) + '[channels.slack.channels."C0000555"]\n'
    ch = await start_channels(config)
    await connected(slack)
    event = mention("hi")
    slack.push(event)
    slack.push(event)  # Slack resends an envelope whose ack it did not get
    slack.push(message(event["event"]["text"], channel="C0000555", channel_type="channel", ts=event["event"]["ts"]))
    await eventually(lambda: replies(slack), what="the reply")
    await eventually(lambda: not slack.unacked(), what="every envelope acknowledged")
    await ch.settled()
    assert replies(slack) == ["just once"] and len(claw_env.server.chat_requests) == 1
    assert [r["status"] for r in ch.rows("channel_inbox")] == ["done"]


async def test_a_disconnect_message_opens_a_new_connection_after_a_backoff(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("before"), text("after"))
    await start_channels(socket_config(slack, allowFrom=["U0000042"]))
    await connected(slack)
    slack.push(message("first"))
    await eventually(lambda: replies(slack) == ["before"], what="the first reply")
    slack.disconnect("refresh_requested")
    await connected(slack, 2)
    assert len(slack.calls_of("apps.connections.open")) == 2  # a fresh URL for every connection
    gap = slack.connections[1] - slack.connections[0]
    assert gap >= 0.4  # a jittered backoff, never a tight loop
    slack.push(message("second"))
    await eventually(lambda: replies(slack) == ["before", "after"], what="a reply on the new connection")


async def test_a_silent_connection_is_replaced_and_the_held_envelope_arrives_once(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("found you"))
    ch = await start_channels(socket_config(slack, allowFrom=["U0000042"]))
    await connected(slack)
    slack.go_silent()  # no more pongs and no frames: the link is dead
    envelope_id = slack.push(message("while silent"))  # held back: only the next connection brings it
    await connected(slack, 2)
    assert slack.pings, "the adapter pings a connection that says nothing"
    await eventually(lambda: replies(slack), what="the reply")
    await ch.settled()
    assert replies(slack) == ["found you"] and slack.envelopes[envelope_id].acked_at is not None
    (account,) = (await ch.call("channels.status"))["accounts"]
    assert "no pong" in (account["lastError"] or "")


async def test_a_refused_app_token_stops_the_account_with_a_clear_error(
    start_channels: Start, slack: FakeSlack
) -> None:
    config = socket_config(slack).replace(APP_TOKEN, "xapp-wrong")
    ch = await start_channels(config)
    await eventually(lambda: slack.calls_of("apps.connections.open", ok=False), what="the refused open")

    await ch.account_ended("slack")  # retrying cannot help: the account stopped, so no attempt can follow
    (account,) = (await ch.call("channels.status"))["accounts"]
    assert account["state"] == "error" and "app-level token is invalid" in account["lastError"]
    assert "xapp-wrong" not in str(account)
    assert len(slack.calls_of("apps.connections.open", ok=None)) == 1


async def test_a_rate_limited_connections_open_is_retried_after_its_retry_after(
    start_channels: Start, slack: FakeSlack
) -> None:
    slack.fail("apps.connections.open", 429, retry_after=1.5)
    await start_channels(socket_config(slack))
    await connected(slack)
    limited, opened = slack.calls_of("apps.connections.open", ok=None)
    assert limited.status == 429 and opened.ok
    assert opened.at - limited.at >= 1.5


async def test_a_burst_of_envelopes_is_stored_in_order_each_acknowledged_after_its_commit(
    start_channels: Start, slack: FakeSlack, claw_env: ClawEnv
) -> None:
    claw_env.server.script(*[text("ok")] * 10)
    stored_at_ack: list[bool] = []
    slack.on_ack = lambda envelope: stored_at_ack.append(
        f"slack|default|D0000042|{envelope.payload['event']['ts']}" in stored_keys(claw_env.home)
    )
    ch = await start_channels(socket_config(slack, allowFrom=["U0000042"]))
    await connected(slack)
    for i in range(10):
        slack.push(message(f"burst {i}"))
    await eventually(lambda: len(stored_at_ack) == 10, what="ten acknowledgements")
    assert stored_at_ack == [True] * 10 and not slack.unacked()
    bodies = [json.loads(r["ctx"])["body"] for r in ch.rows("channel_inbox")]
    assert bodies == [f"burst {i}" for i in range(10)]  # the order they came in
    assert all(e.attempts == 1 for e in slack.envelopes.values())
