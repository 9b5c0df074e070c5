"""`[channels.telegram]`: the default bot account and `[channels.telegram.accounts.<id>]` more, each
with its direct-message and group policies (failing closed, see `claw.channels.settings`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, field_validator, model_validator

from claw.channels.access_terms import DmPolicy, GroupPolicy, check_access, secret_value
from claw.channels.access_terms import str_ids as _ids
from claw.settings_base import HttpUrl, Name, Section


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
