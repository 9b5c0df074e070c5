"""`[channels]` in config.toml: the webhook hooks, the Telegram accounts, and the outbox's retry policy.

Everything here fails closed: direct messages default to `pairing`, groups to `allowlist`
with an empty list (no group may talk) and a mention required; `open` must be spelled out
with `allowFrom = ["*"]`. Secrets are best given as the name of an environment variable
(`secretEnv`, `botTokenEnv`); a literal value in the file works too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, field_validator, model_validator

from claw.settings.channel_access import DmPolicy, GroupPolicy, check_access, secret_value
from claw.settings.channel_access import str_ids as _ids
from claw.settings.dingtalk import DingTalkSettings
from claw.settings.discord import DiscordSettings
from claw.settings.feishu import FeishuSettings
from claw.settings.slack import SlackSettings, slack_secrets
from claw.settings_base import HttpUrl, Name, Section


class WebhookHook(Section):
    """`[channels.webhook.hooks.<name>]`: one signed inbound webhook and where its replies go."""

    secret: str | None = None
    secret_env: str | None = None
    """Name of the environment variable holding the HMAC secret (preferred over `secret`)."""
    reply_url: HttpUrl | None = None
    """Replies are POSTed here as JSON (through the outbox); without it the agent's replies are only recorded."""
    agent: str | None = None
    """The agent that answers; default: the bindings, else `main`."""
    allow_commands: bool = False
    """Whether a `/command` in a webhook message runs as a command (default: it is text for the model)."""
    max_reply_chars: int = Field(default=16_000, ge=200, le=1_000_000)


class WebhookSettings(Section):
    max_body_bytes: int = Field(default=256 * 1024, ge=1024, le=16 * 1024 * 1024)
    tolerance_seconds: float = Field(default=300.0, gt=0, le=3600)
    """How far `X-Claw-Timestamp` may be from now, either way."""
    rate_per_second: float = Field(default=0.0, ge=0, le=10_000)
    """Replies POSTed per second per hook (0: no limit)."""
    hooks: dict[Name, WebhookHook] = {}
    """By name; the name is the hook's URL path (`POST /hooks/<name>`)."""


class TelegramGroup(Section):
    """`[channels.telegram.groups."<chat id>"]` (or `"*"`): a group the bot may answer in."""

    require_mention: bool | None = None
    allow_from: tuple[str, ...] | None = None
    """Who may trigger the bot in this group (default: the account's `groupAllowFrom`)."""

    norm_ids = field_validator("allow_from", mode="before")(_ids)


class TelegramAccount(Section):
    """One bot. `[channels.telegram]` holds the default account; `[channels.telegram.accounts.<id>]` more,
    each inheriting what it does not set."""

    bot_token: str | None = None
    bot_token_env: str | None = "TELEGRAM_BOT_TOKEN"
    api_base_url: HttpUrl = "https://api.telegram.org"
    mode: Literal["polling", "webhook"] = "polling"
    webhook_url: HttpUrl | None = None
    """Public URL Telegram should POST to (webhook mode); the gateway serves `/telegram/<account>`."""
    webhook_secret: str | None = None
    webhook_secret_env: str | None = None
    dm_policy: DmPolicy = "pairing"
    allow_from: tuple[str, ...] = ()
    group_policy: GroupPolicy = "allowlist"
    group_allow_from: tuple[str, ...] = ()
    groups: dict[str, TelegramGroup] = {}
    require_mention: bool = True
    mention_patterns: tuple[str, ...] = ()
    """Extra regular expressions that count as a mention of the bot in groups."""
    streaming: bool = False
    """Show the reply while it is written: one placeholder message edited at most once per second."""
    poll_timeout_seconds: int = Field(default=25, ge=0, le=50)
    rate_per_second: float = Field(default=25.0, ge=0, le=10_000)
    max_message_chars: int = Field(default=4096, ge=100, le=4096)

    norm_ids = field_validator("allow_from", "group_allow_from", mode="before")(_ids)

    def token(self, environ: Mapping[str, str] | None = None) -> str | None:
        return secret_value(self.bot_token, self.bot_token_env, environ)

    def secret_token(self, environ: Mapping[str, str] | None = None) -> str | None:
        return secret_value(self.webhook_secret, self.webhook_secret_env, environ)


class TelegramSettings(TelegramAccount):
    enabled: bool = True
    accounts: dict[Name, TelegramAccount] = {}
    """By account id, which is the account's URL path in webhook mode (`/telegram/<id>`)."""

    @model_validator(mode="after")
    def _check_accounts(self) -> TelegramSettings:
        for name, account in self.effective_accounts().items():
            check_access(account.dm_policy, account.allow_from, f"accounts.{name}: " if self.accounts else "")
        return self

    def effective_accounts(self) -> dict[str, TelegramAccount]:
        """Account id → settings: the accounts listed (over the defaults), else the default account if it
        names a token (`botToken`, or `botTokenEnv` set in the file)."""
        base = {k: getattr(self, k) for k in TelegramAccount.model_fields}
        if self.accounts:
            return {
                name: TelegramAccount.model_validate({**base, **{k: getattr(a, k) for k in a.model_fields_set}})
                for name, a in self.accounts.items()
            }
        named = {"bot_token", "bot_token_env"} & self.model_fields_set
        return {"default": TelegramAccount.model_validate(base)} if named else {}


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
