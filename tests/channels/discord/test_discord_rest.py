"""The Discord REST client against the fake Discord: route keys, a global 429 holding every route, and a 429
longer than the client waits itself handed to the outbox as `retry_after`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from claw.channels.discord.rest import DiscordError, DiscordRest, route_key
from tests.channels.discord_fake import DISCORD_TOKEN, FakeDiscord


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    server = FakeDiscord()
    server.start()
    yield server
    server.stop()


def test_route_keys_keep_the_major_parameter_only() -> None:
    assert route_key("POST", "/channels/1/messages") == "POST /channels/1/messages"
    assert route_key("PATCH", "/channels/1/messages/99") == "PATCH /channels/1/messages/{id}"
    assert route_key("GET", "/users/@me") == "GET /users/@me"


async def test_a_global_429_holds_every_route(fake: FakeDiscord) -> None:
    rest = DiscordRest(fake.api_base, DISCORD_TOKEN)
    try:
        fake.fail(429, retry_after=0.5, is_global=True)
        first = asyncio.create_task(rest.request("POST", "/channels/1/messages", {"content": "a"}))
        await asyncio.sleep(0.15)  # the global 429 has come back; another route asks now
        await rest.request("POST", "/channels/2/messages", {"content": "b"})
        await first
        limited = next(r for r in fake.rest if r.status == 429)
        sent = [r for r in fake.rest if r.status == 200]
        assert len(sent) == 2 and all(r.at - limited.at >= 0.45 for r in sent)  # both held, not only the first
    finally:
        await rest.close()


async def test_a_long_429_is_left_to_the_outbox(fake: FakeDiscord) -> None:
    rest = DiscordRest(fake.api_base, DISCORD_TOKEN, max_wait=1.0)
    try:
        fake.fail(429, retry_after=30.0)
        with pytest.raises(DiscordError) as caught:
            await rest.request("POST", "/channels/1/messages", {"content": "a"})
        assert caught.value.status == 429 and caught.value.retry_after == 30.0
    finally:
        await rest.close()
