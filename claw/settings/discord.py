"""`[channels.discord]` in config.toml: one bot account (or several under `accounts.<id>`), laid out as
`[channels.telegram]` is, so that every channel reads the same.

Access fails closed like Telegram's: direct messages default to `pairing`; in servers ("guilds")
nothing may talk until a guild or a channel is allowlisted (`guilds."<id>"`, `channels."<id>"`, or
`"*"`), and a mention of the bot is required unless `requireMention = false` there. A thread is
judged by its parent channel's rule. The bot token is best given as an environment variable
(`botTokenEnv`, default `DISCORD_BOT_TOKEN`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, Field, field_validator, model_validator

from claw.settings.channel_access import DmPolicy, GroupPolicy, check_access, secret_value
from claw.settings.channel_access import str_ids as _ids
from claw.settings_base import HttpUrl, Name, Section


def _check_ws_url(value: str) -> str:
    """The gateway's address: ws or wss, with a host (claw adds `?v=10&encoding=json`)."""
    parts = urlsplit(value)
    if parts.scheme.lower() not in ("ws", "wss") or not parts.hostname or parts.query:
        raise ValueError("must be a ws:// or wss:// URL with a host and no query string")
    return value


WsUrl = Annotated[str, AfterValidator(_check_ws_url)]


class DiscordRule(Section):
    """`[channels.discord.guilds."<guild id>"]` or `[channels.discord.channels."<channel id>"]` (or `"*"`):
    where the bot may answer. A channel's rule wins over its guild's."""

    require_mention: bool | None = None
    allow_from: tuple[str, ...] | None = None
    """Who may trigger the bot here (default: the account's `groupAllowFrom`)."""

    norm_ids = field_validator("allow_from", mode="before")(_ids)


class DiscordAccount(Section):
    """One bot. `[channels.discord]` holds the default account; `[channels.discord.accounts.<id>]` more,
    each inheriting what it does not set."""

    bot_token: str | None = None
    bot_token_env: str | None = "DISCORD_BOT_TOKEN"
    api_base_url: HttpUrl = "https://discord.com/api/v10"
    gateway_url: WsUrl = "wss://gateway.discord.gg"
    dm_policy: DmPolicy = "pairing"
    allow_from: tuple[str, ...] = ()
    group_policy: GroupPolicy = "allowlist"
    """Guild channels: `allowlist` (only `guilds` / `channels` listed), `open`, or `disabled`."""
    group_allow_from: tuple[str, ...] = ()
    guilds: dict[str, DiscordRule] = {}
    channels: dict[str, DiscordRule] = {}
    require_mention: bool = True
    streaming: bool = False
    """Show the reply while it is written: one message edited at most once per second."""
    rate_per_second: float = Field(default=25.0, ge=0, le=50)
    """Sends per second by this account, all channels together: half of Discord's global 50 requests
    per second, leaving room for edits and retries. Each channel's own bucket (`X-RateLimit-*`, about
    5 messages per 5 s) is honoured on top, so this cap only matters for a bot answering many people."""
    max_message_chars: int = Field(default=2000, ge=100, le=2000)
    max_backoff_seconds: float = Field(default=60.0, ge=1, le=3600)
    """Longest wait between two reconnect attempts (the backoff doubles up to it, with jitter)."""

    norm_ids = field_validator("allow_from", "group_allow_from", mode="before")(_ids)

    @field_validator("guilds", "channels", mode="before")
    @classmethod
    def _keys_as_text(cls, value: object) -> object:
        return {str(k): v for k, v in value.items()} if isinstance(value, Mapping) else value

    def token(self, environ: Mapping[str, str] | None = None) -> str | None:
        return secret_value(self.bot_token, self.bot_token_env, environ)


class DiscordSettings(DiscordAccount):
    enabled: bool = True
    accounts: dict[Name, DiscordAccount] = {}

    @model_validator(mode="after")
    def _check_accounts(self) -> DiscordSettings:
        for name, account in self.effective_accounts().items():
            check_access(account.dm_policy, account.allow_from, f"accounts.{name}: " if self.accounts else "")
        return self

    def effective_accounts(self) -> dict[str, DiscordAccount]:
        """Account id → settings: the accounts listed (over the defaults), else the default account if it
        names a token (`botToken`, or `botTokenEnv` set in the file)."""
        base = {k: getattr(self, k) for k in DiscordAccount.model_fields}
        if self.accounts:
            return {
                name: DiscordAccount.model_validate({**base, **{k: getattr(a, k) for k in a.model_fields_set}})
                for name, a in self.accounts.items()
            }
        named = {"bot_token", "bot_token_env"} & self.model_fields_set
        return {"default": DiscordAccount.model_validate(base)} if named else {}
