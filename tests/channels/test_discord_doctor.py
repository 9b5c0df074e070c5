"""`claw doctor` for Discord: a token's presence offline; `GET /users/@me` against the fake Discord online."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from claw.channels.discord_doctor import auth_test, check_tokens
from claw.channels.discord_settings import DiscordAccount, DiscordSettings
from tests.channels.discord_fake import DISCORD_TOKEN, FakeDiscord


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    server = FakeDiscord()
    server.start()
    yield server
    server.stop()


def test_token_presence_per_account(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISCORD_BOT_TOKEN", raising=False)
    monkeypatch.setenv("OTHER_TOKEN", "secret-value")
    settings = DiscordSettings.model_validate({"accounts": {"a": {}, "b": {"botTokenEnv": "OTHER_TOKEN"}}})
    a, b = check_tokens(settings)
    assert (a.name, a.status) == ("discord/a", "fail") and "DISCORD_BOT_TOKEN" in a.detail
    assert (b.name, b.status) == ("discord/b", "ok") and "secret-value" not in b.detail
    assert check_tokens(DiscordSettings()) == []  # nothing configured: nothing to say


async def test_the_online_check_asks_discord(fake: FakeDiscord) -> None:
    good = await auth_test("default", DiscordAccount(bot_token=DISCORD_TOKEN, api_base_url=fake.api_base))
    assert good.status == "ok" and "clawbot" in good.detail
    bad = await auth_test("default", DiscordAccount(bot_token="wrong", api_base_url=fake.api_base))
    assert bad.status == "fail" and "refused" in bad.detail
