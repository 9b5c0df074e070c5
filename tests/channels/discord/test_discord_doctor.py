"""`claw doctor` for Discord: a token's presence offline; `GET /users/@me` against the fake Discord online."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from claw.channels.discord.doctor import auth_test, check_tokens
from claw.settings.discord import DiscordAccount, DiscordSettings
from tests.channels.discord_fake import DISCORD_TOKEN, FakeDiscord
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw


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


def test_claw_doctor_online_asks_discord_for_each_account(claw_env: ClawEnv, fake: FakeDiscord) -> None:
    """Through the CLI: offline only presence is checked; `--online` adds Discord's answer per account."""
    assert run_claw(claw_env.env, "init").returncode == 0
    with (claw_env.home / "config.toml").open("a") as config:
        config.write(
            f'\n[channels.discord]\napiBaseUrl = "{fake.api_base}"\n'
            f'[channels.discord.accounts.good]\nbotToken = "{DISCORD_TOKEN}"\n'
            '[channels.discord.accounts.bad]\nbotToken = "wrong-token"\n'
        )

    def discord_checks(*args: str) -> tuple[int, list[tuple[str, str, str]]]:
        done = run_claw(claw_env.env, "doctor", "--json", *args)
        checks = json.loads(done.stdout)["checks"]
        return done.returncode, [
            (c["name"], c["status"], c["detail"]) for c in checks if c["name"].startswith("discord")
        ]

    code, offline = discord_checks()
    assert code == 0 and [(n, s) for n, s, _ in offline] == [("discord/good", "ok"), ("discord/bad", "ok")]
    code, online = discord_checks("--online")
    assert code == 1  # the bad token fails the run
    assert [(n, s) for n, s, _ in online[2:]] == [("discord/good", "ok"), ("discord/bad", "fail")]
    assert "clawbot" in online[2][2] and "refused" in online[3][2]
    assert DISCORD_TOKEN not in json.dumps(online)
