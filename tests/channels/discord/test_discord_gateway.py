"""Discord's gateway connection end to end against the fake Discord: Identify with the intents and heartbeats
at the interval; a zombied connection (no heartbeat ACK) resumed with the missed event replayed once;
Reconnect (op 7) and Invalid Session (op 9, resumable or not); the session kept across a restart."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from claw.channels.discord.gateway import DIRECT_MESSAGES, GUILD_MESSAGES, MESSAGE_CONTENT
from tests.channels.conftest import Start, _toml, eventually
from tests.channels.discord_fake import DISCORD_TOKEN, INTERVAL_MS, FakeDiscord, dm
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text


@pytest.fixture
def discord() -> Iterator[FakeDiscord]:
    fake = FakeDiscord()
    fake.start()
    yield fake
    fake.stop()


def discord_config(fake: FakeDiscord, **extra: Any) -> str:
    lines = [f'botToken = "{DISCORD_TOKEN}"', f'apiBaseUrl = "{fake.api_base}"', f'gatewayUrl = "{fake.gateway_url}"']
    lines += [f"{k} = {_toml(v)}" for k, v in extra.items()]
    return "[channels.discord]\n" + "\n".join(lines) + "\n"


def replies(fake: FakeDiscord) -> list[str]:
    return [r.body["content"] for r in fake.posts()]


async def ready(fake: FakeDiscord, identifies: int = 1) -> None:
    await eventually(lambda: len(fake.identifies) >= identifies and fake._current, what="an identified session")


async def test_identify_carries_the_intents_and_heartbeats_follow_the_interval(
    start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("Hello Ada"))
    ch = await start_channels(discord_config(discord, allowFrom=["42"]))
    await ready(discord)
    (identify,) = discord.identifies
    assert identify["token"] == DISCORD_TOKEN
    wanted = GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT
    assert identify["intents"] & wanted == wanted
    seq = discord.dispatch("MESSAGE_CREATE", dm("hi there"))
    await eventually(lambda: replies(discord), what="the reply")
    assert replies(discord) == ["Hello Ada"]
    assert claw_env.server.chat_requests[0].messages[-1]["content"] == "hi there"
    await eventually(lambda: len(discord.heartbeats) >= 4, what="heartbeats")
    times = [t for t, _ in discord.heartbeats]
    gaps = [b - a for a, b in zip(times[1:], times[2:], strict=False)]  # the first one is jittered
    assert all(gap > INTERVAL_MS / 1000 * 0.7 for gap in gaps), gaps
    assert discord.heartbeats[-1][1] == seq  # a heartbeat carries the last sequence number handled
    (account,) = (await ch.call("channels.status"))["accounts"]
    assert account["channel"] == "discord" and account["state"] == "running"
    assert account["detail"].startswith("connected") and account["lastPollAt"]  # the last heartbeat ACK


async def test_a_zombied_connection_is_resumed_and_the_missed_event_arrives_once(
    start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("first answer"), text("second answer"))
    ch = await start_channels(discord_config(discord, allowFrom=["42"]))
    await ready(discord)
    discord.dispatch("MESSAGE_CREATE", dm("before"))
    await eventually(lambda: replies(discord), what="the first reply")
    discord.replay_overlap = True  # the resume replays "before" too: the inbox must drop it
    discord.go_deaf()
    discord.dispatch("MESSAGE_CREATE", dm("while deaf"))  # held back: only a Resume brings it
    await eventually(lambda: discord.resumes, timeout=10, what="a Resume")
    await eventually(lambda: len(replies(discord)) == 2, what="the replayed message's reply")
    await ch.settled()
    assert replies(discord) == ["first answer", "second answer"]
    assert len(discord.identifies) == 1 and discord.closes[0] == 4000  # closed as zombied, resumable
    assert discord.connections[-1] == "/resume/"  # at the session's resume_gateway_url
    assert [r["status"] for r in ch.rows("channel_inbox")] == ["done", "done"]
    assert len(claw_env.server.chat_requests) == 2


async def test_reconnect_and_invalid_session(start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv) -> None:
    claw_env.server.script(text("one"), text("two"))
    await start_channels(discord_config(discord, allowFrom=["42"]))
    await ready(discord)
    session_id = discord._current[1].id  # type: ignore[index]
    discord.send_op(7)  # Reconnect: resume the same session
    await eventually(lambda: discord.resumes and discord._current, what="a Resume after op 7")
    assert discord.resumes[0]["session_id"] == session_id and discord.resumes[0]["token"] == DISCORD_TOKEN
    discord.dispatch("MESSAGE_CREATE", dm("after op 7"))
    await eventually(lambda: replies(discord) == ["one"], what="a reply on the resumed session")
    discord.send_op(9, True)  # resumable: Resume again
    await eventually(lambda: len(discord.resumes) == 2 and discord._current, timeout=15, what="a second Resume")
    assert len(discord.identifies) == 1
    discord.send_op(9, False)  # not resumable: a new session
    await eventually(lambda: len(discord.identifies) == 2 and discord._current, timeout=15, what="a new Identify")
    assert len(discord.resumes) == 2
    discord.dispatch("MESSAGE_CREATE", dm("new session"))
    await eventually(lambda: replies(discord) == ["one", "two"], what="a reply on the new session")


async def test_the_session_survives_a_restart(start_channels: Start, discord: FakeDiscord, claw_env: ClawEnv) -> None:
    ch = await start_channels(discord_config(discord, allowFrom=["42"]))
    await ready(discord)
    seq = discord.dispatch("MESSAGE_CREATE", dm("before restart"))
    await eventually(lambda: replies(discord), what="the reply")
    await ch.settled()
    await ch.gateway.close()
    await start_channels(discord_config(discord, allowFrom=["42"]))
    await eventually(lambda: discord.resumes, what="a Resume after the restart")
    assert discord.resumes[0]["seq"] >= seq and len(discord.identifies) == 1


async def account_status(ch: Any, want: Any, timeout: float = 60.0) -> dict[str, Any]:
    """Poll `channels.status` until the one account's status satisfies `want`."""
    deadline = time.monotonic() + timeout
    while True:
        (account,) = (await ch.call("channels.status"))["accounts"]
        if want(account):
            return account
        assert time.monotonic() < deadline, f"status never matched: {account}"
        await asyncio.sleep(0.02)


async def test_an_outage_shows_as_reconnecting_and_a_fatal_close_code_stops_the_account(
    start_channels: Start, discord: FakeDiscord
) -> None:
    ch = await start_channels(discord_config(discord, allowFrom=["42"]))
    await ready(discord)
    await account_status(ch, lambda a: a["state"] == "running")
    discord.send_op(9, False)  # a new session, after the documented 1–5 s: long enough to be seen
    down = await account_status(ch, lambda a: a["state"] == "reconnecting")
    assert down["detail"].startswith("reconnecting since") and "op 9" in down["lastError"]
    await eventually(lambda: len(discord.identifies) == 2 and discord._current, timeout=15, what="a new session")
    await account_status(ch, lambda a: a["state"] == "running")
    connections = len(discord.connections)
    discord.close(4014)  # disallowed intents: retrying cannot help
    await ch.account_ended("discord")  # stopped: no reconnect can follow
    stopped = await account_status(ch, lambda a: a["state"] == "error")
    assert "4014" in stopped["lastError"] and "Message Content" in stopped["lastError"]
    assert len(discord.connections) == connections
