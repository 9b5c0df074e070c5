"""`claw doctor` for Slack (what each mode needs present offline; `auth.test` against the fake Slack online), and
automations' `--deliver slack:<channel>[:<thread>]` checked when they are added."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from claw.automations.delivery import check_reachable, parse_delivery
from claw.channels.slack.doctor import auth_test, check_tokens
from claw.compose import CHANNEL_PLATFORMS
from claw.config import load_config
from claw.errors import UsageError
from claw.paths import Paths
from claw.settings.slack import SlackAccount, SlackSettings
from tests.channels.slack_fake import APP_TOKEN, BOT_TOKEN, SIGNING_SECRET, FakeSlack
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw


@pytest.fixture
def fake() -> Iterator[FakeSlack]:
    server = FakeSlack()
    server.start()
    yield server
    server.stop()


def test_what_each_mode_needs_is_present(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OTHER_SLACK_TOKEN", "xoxb-secret-value")
    settings = SlackSettings.model_validate({"accounts": {
        "a": {"botTokenEnv": "OTHER_SLACK_TOKEN"},
        "b": {"botTokenEnv": "OTHER_SLACK_TOKEN", "signingSecret": "s"},
        "c": {"mode": "socket", "botTokenEnv": "OTHER_SLACK_TOKEN"},
    }})  # fmt: skip
    a, b, c = check_tokens(settings)
    assert (a.name, a.status) == ("slack/a", "fail") and "SLACK_SIGNING_SECRET" in a.detail
    assert (b.name, b.status) == ("slack/b", "ok") and "xoxb-secret-value" not in b.detail
    assert c.status == "fail" and "SLACK_APP_TOKEN" in c.detail and "socket mode" in c.detail
    assert check_tokens(SlackSettings()) == []  # nothing configured: nothing to say


async def test_the_online_check_is_auth_test(fake: FakeSlack) -> None:
    good = await auth_test("default", SlackAccount(bot_token=BOT_TOKEN, api_base_url=fake.api_base))
    assert good.status == "ok" and "clawbot" in good.detail and "Claw Test" in good.detail
    bad = await auth_test("default", SlackAccount(bot_token="xoxb-wrong", api_base_url=fake.api_base))
    assert bad.status == "fail" and "invalid_auth" in bad.detail


def test_claw_doctor_online_asks_slack(claw_env: ClawEnv, fake: FakeSlack) -> None:
    assert run_claw(claw_env.env, "init").returncode == 0
    with (claw_env.home / "config.toml").open("a") as config:
        config.write(
            f'\n[channels.slack]\napiBaseUrl = "{fake.api_base}"\nsigningSecret = "{SIGNING_SECRET}"\n'
            f'[channels.slack.accounts.good]\nbotToken = "{BOT_TOKEN}"\n'
            f'[channels.slack.accounts.bad]\nbotToken = "xoxb-wrong"\nmode = "socket"\nappToken = "{APP_TOKEN}"\n'
        )

    def slack_checks(*args: str) -> tuple[int, list[tuple[str, str, str]]]:
        done = run_claw(claw_env.env, "doctor", "--json", *args)
        checks = json.loads(done.stdout)["checks"]
        return done.returncode, [(c["name"], c["status"], c["detail"]) for c in checks if c["name"].startswith("slack")]

    code, offline = slack_checks()
    assert code == 0 and [(n, s) for n, s, _ in offline] == [("slack/good", "ok"), ("slack/bad", "ok")]
    code, online = slack_checks("--online")
    assert code == 1  # the refused token fails the run
    assert [(n, s) for n, s, _ in online[2:]] == [("slack/good", "ok"), ("slack/bad", "fail")]
    assert BOT_TOKEN not in json.dumps(online) and APP_TOKEN not in json.dumps(online)


def test_automation_targets_are_checked_at_add(claw_env: ClawEnv) -> None:
    (claw_env.home / "config.toml").write_text(f'[channels.slack]\nbotToken = "{BOT_TOKEN}"\n', encoding="utf-8")
    config = load_config(Paths.from_env())
    check_reachable(parse_delivery("slack:C0123ABCD"), config, CHANNEL_PLATFORMS)
    check_reachable(parse_delivery("slack:C0123ABCD:1700000000.000100"), config, CHANNEL_PLATFORMS)
    with pytest.raises(UsageError, match="invalid slack target"):
        check_reachable(parse_delivery("slack:#general"), config, CHANNEL_PLATFORMS)
    (claw_env.home / "config.toml").write_text("", encoding="utf-8")
    with pytest.raises(UsageError, match=r"no slack account is configured"):
        check_reachable(parse_delivery("slack:C0123ABCD"), load_config(Paths.from_env()), CHANNEL_PLATFORMS)
