"""`[channels.slack]`: accounts, secrets (for redaction too) and the access rules' guard."""

from __future__ import annotations

import pytest

from claw.settings.channels import ChannelsSettings, channel_secrets
from claw.settings.slack import SlackSettings, slack_secrets


def test_accounts_inherit_the_defaults_and_every_secret_is_found_for_redaction() -> None:
    settings = SlackSettings.model_validate(
        {"botToken": "xoxb-1", "signingSecret": "sig", "accounts": {"w2": {"appToken": "xapp-2", "mode": "socket"}}}
    )
    accounts = settings.effective_accounts()
    assert list(accounts) == ["w2"]
    assert accounts["w2"].mode == "socket" and accounts["w2"].token() == "xoxb-1"
    assert {s for s in slack_secrets(settings) if s} == {"xoxb-1", "sig", "xapp-2"}


def test_secrets_come_from_the_named_environment_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAW_TEST_SLACK_BOT", "xoxb-env")
    account = SlackSettings.model_validate({"botTokenEnv": "CLAW_TEST_SLACK_BOT"}).effective_accounts()["default"]
    assert account.token() == "xoxb-env"
    assert SlackSettings().effective_accounts() == {}


def test_open_direct_messages_need_the_wildcard() -> None:
    with pytest.raises(ValueError, match='allowFrom = \\["\\*"\\]'):
        SlackSettings.model_validate({"botToken": "x", "dmPolicy": "open"})
    SlackSettings.model_validate({"botToken": "x", "dmPolicy": "open", "allowFrom": ["*"]})


def test_a_slack_table_is_part_of_the_channels_settings() -> None:
    channels = ChannelsSettings.model_validate(
        {"slack": {"mode": "socket", "botToken": "xoxb-9", "appToken": "xapp-9", "pingIntervalSeconds": 2}}
    )
    (account,) = channels.slack.effective_accounts().values()
    assert account.mode == "socket" and account.ping_interval_seconds == 2
    assert {"xoxb-9", "xapp-9"} <= set(channel_secrets(channels))
    with pytest.raises(ValueError, match="mode"):
        ChannelsSettings.model_validate({"slack": {"botToken": "x", "mode": "rtm"}})
