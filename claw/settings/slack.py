"""`[channels.slack]` in config.toml: one Slack app (bot) per account, by the Events API or Socket Mode.

The layout is Telegram's: `[channels.slack]` is the `default` account and holds the defaults,
`[channels.slack.accounts.<id>]` adds more, each inheriting what it does not set; the account id is
its URL path in Events API mode (`POST /slack/<id>`). Access fails closed as everywhere: direct
messages default to `pairing`, channels to `allowlist` with none listed and a mention required.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, field_validator, model_validator

from claw.settings.channel_access import DmPolicy, GroupPolicy, check_access, secret_value
from claw.settings.channel_access import str_ids as _ids
from claw.settings_base import HttpUrl, Name, Section


class SlackChannel(Section):
    """`[channels.slack.channels."<channel id>"]` (or `"*"`): a channel the bot may answer in."""

    require_mention: bool | None = None
    """Whether only messages that mention the bot count (default: the account's `requireMention`)."""
    allow_from: tuple[str, ...] | None = None
    """Who may trigger the bot in this channel (default: the account's `groupAllowFrom`)."""

    norm_ids = field_validator("allow_from", mode="before")(_ids)


class SlackAccount(Section):
    """One Slack app installed in one workspace."""

    mode: Literal["events", "socket"] = "events"
    """`events`: Slack POSTs to the gateway's `/slack/<account>`; `socket`: the gateway dials Slack (no public URL)."""
    bot_token: str | None = None
    bot_token_env: str | None = "SLACK_BOT_TOKEN"
    """The bot token (`xoxb-…`), for the Web API."""
    signing_secret: str | None = None
    signing_secret_env: str | None = "SLACK_SIGNING_SECRET"
    """The app's signing secret, which signs every Events API request (events mode)."""
    app_token: str | None = None
    app_token_env: str | None = "SLACK_APP_TOKEN"
    """An app-level token (`xapp-…`, scope `connections:write`), for Socket Mode."""
    api_base_url: HttpUrl = "https://slack.com/api/"
    dm_policy: DmPolicy = "pairing"
    allow_from: tuple[str, ...] = ()
    """Slack user ids (`U…`) allowed to talk to the bot directly."""
    group_policy: GroupPolicy = "allowlist"
    group_allow_from: tuple[str, ...] = ()
    channels: dict[str, SlackChannel] = {}
    require_mention: bool = True
    streaming: bool = False
    """Show the reply while it is written: one message updated with chat.update at most once per second."""
    rate_per_second: float = Field(default=1.0, ge=0, le=10_000)
    """chat.postMessage is allowed about one message per second per channel."""
    max_message_chars: int = Field(default=3900, ge=100, le=40_000)
    """Slack truncates `text` past 40,000 characters and advises 4,000; parts stay under this."""
    ping_interval_seconds: float = Field(default=10.0, ge=0.2, le=300)
    """Socket Mode: a ping after this long without a frame from Slack; no pong within half of it means
    the connection is dead and is replaced."""
    max_backoff_seconds: float = Field(default=60.0, ge=0.5, le=3600)
    """Socket Mode: the longest wait between reconnection attempts (the backoff doubles up to it)."""

    norm_ids = field_validator("allow_from", "group_allow_from", mode="before")(_ids)

    def token(self, environ: Mapping[str, str] | None = None) -> str | None:
        return secret_value(self.bot_token, self.bot_token_env, environ)

    def signing_key(self, environ: Mapping[str, str] | None = None) -> str | None:
        return secret_value(self.signing_secret, self.signing_secret_env, environ)

    def app_level_token(self, environ: Mapping[str, str] | None = None) -> str | None:
        return secret_value(self.app_token, self.app_token_env, environ)

    def base_url(self) -> str:
        """slack_sdk joins method names onto the base URL, which must end in a slash."""
        return self.api_base_url.rstrip("/") + "/"


class SlackSettings(SlackAccount):
    enabled: bool = True
    accounts: dict[Name, SlackAccount] = {}
    """By account id, which is the account's URL path in events mode (`/slack/<id>`)."""

    @model_validator(mode="after")
    def _check_accounts(self) -> SlackSettings:
        for name, account in self.effective_accounts().items():
            check_access(account.dm_policy, account.allow_from, f"accounts.{name}: " if self.accounts else "")
        return self

    def effective_accounts(self) -> dict[str, SlackAccount]:
        """Account id → settings: the accounts listed (over the defaults), else the default account if the
        table names a bot token (`botToken`, or `botTokenEnv` set in the file)."""
        base = {k: getattr(self, k) for k in SlackAccount.model_fields}
        if self.accounts:
            return {
                name: SlackAccount.model_validate({**base, **{k: getattr(a, k) for k in a.model_fields_set}})
                for name, a in self.accounts.items()
            }
        named = {"bot_token", "bot_token_env"} & self.model_fields_set
        return {"default": SlackAccount.model_validate(base)} if named else {}


def slack_secrets(settings: SlackSettings, environ: Mapping[str, str] | None = None) -> list[str | None]:
    """Every Slack token and signing secret in use, for log redaction."""
    found: list[str | None] = []
    for account in settings.effective_accounts().values():
        found += [account.token(environ), account.signing_key(environ), account.app_level_token(environ)]
    return found
