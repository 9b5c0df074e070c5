"""`[channels]` in config.toml: one section per platform (each platform's own model, in its package
`claw/channels/<platform>/settings.py`) and the outbox's retry policy.

Everything here fails closed: direct messages default to `pairing`, groups to `allowlist`
with an empty list (no group may talk) and a mention required; `open` must be spelled out
with `allowFrom = ["*"]`. Secrets are best given as the name of an environment variable
(`secretEnv`, `botTokenEnv`); a literal value in the file works too.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field

from claw.channels.access_terms import secret_value
from claw.channels.dingtalk.settings import DingTalkSettings
from claw.channels.discord.settings import DiscordSettings
from claw.channels.feishu.settings import FeishuSettings
from claw.channels.slack.settings import SlackSettings, slack_secrets
from claw.channels.telegram.settings import TelegramSettings
from claw.channels.webhook.settings import WebhookSettings
from claw.settings_base import Section


class OutboxSettings(Section):
    """How the delivery worker retries: exponential backoff with full jitter, then a dead letter."""

    max_attempts: int = Field(default=8, ge=1, le=100)
    base_delay_seconds: float = Field(default=2.0, gt=0, le=86_400)
    max_delay_seconds: float = Field(default=600.0, gt=0, le=7 * 86_400)
    send_timeout_seconds: float = Field(default=30.0, gt=0, le=3600)
    concurrency: int = Field(default=8, ge=1, le=256)
    """Conversations served at once (each conversation's replies always go out one at a time, in order)."""


class ChannelsSettings(Section):
    webhook: WebhookSettings = WebhookSettings()
    telegram: TelegramSettings = TelegramSettings()
    discord: DiscordSettings = DiscordSettings()
    feishu: FeishuSettings = FeishuSettings()
    dingtalk: DingTalkSettings = DingTalkSettings()
    slack: SlackSettings = SlackSettings()
    outbox: OutboxSettings = OutboxSettings()


def channel_secrets(settings: ChannelsSettings, environ: Mapping[str, str] | None = None) -> list[str]:
    """Every channel secret in use (hook secrets, bot tokens, webhook secret tokens), for log redaction."""
    found = [secret_value(h.secret, h.secret_env, environ) for h in settings.webhook.hooks.values()]
    for account in settings.telegram.effective_accounts().values():
        found += [account.token(environ), account.secret_token(environ)]
    found += [account.token(environ) for account in settings.discord.effective_accounts().values()]
    for fs in settings.feishu.effective_accounts().values():
        found += fs.secrets(environ)
    found += [account.secret(environ) for account in settings.dingtalk.effective_accounts().values()]
    found += slack_secrets(settings.slack, environ)
    return [s for s in found if s]
