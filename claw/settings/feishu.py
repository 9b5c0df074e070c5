"""`[channels.feishu]` in config.toml: Feishu (China) and Lark (international) bot apps.

The two platforms differ only by domain (`open.feishu.cn` / `open.larksuite.com`); `apiBaseUrl`
overrides it (the tests point it at a fake on loopback). Like Telegram, `[channels.feishu]` is
the default account and `[channels.feishu.accounts.<id>]` adds more, each inheriting what it
does not set; the account id is its event-subscription path (`POST /feishu/<id>`). Access fails
closed the same way: DMs `pairing`, groups an allowlist with a mention required.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, field_validator, model_validator

from claw.settings.channel_access import DmPolicy, GroupPolicy, check_access, secret_value
from claw.settings.channel_access import str_ids as _ids
from claw.settings_base import HttpUrl, Name, Section

DOMAINS = {"feishu": "https://open.feishu.cn", "lark": "https://open.larksuite.com"}


class FeishuGroup(Section):
    """`[channels.feishu.groups."<chat id>"]` (or `"*"`): a group chat the bot may answer in."""

    require_mention: bool | None = None
    allow_from: tuple[str, ...] | None = None

    norm_ids = field_validator("allow_from", mode="before")(_ids)


class FeishuAccount(Section):
    """One self-built app (its bot). Secrets are named by environment variable, or given literally."""

    mode: Literal["webhook", "websocket"] = "webhook"
    domain: Literal["feishu", "lark"] = "feishu"
    app_id: str | None = None
    app_secret: str | None = None
    app_secret_env: str | None = "FEISHU_APP_SECRET"
    encrypt_key: str | None = None
    encrypt_key_env: str | None = None
    """The app's Encrypt Key: events arrive AES-encrypted and signed (`X-Lark-Signature`)."""
    verification_token: str | None = None
    verification_token_env: str | None = None
    api_base_url: HttpUrl | None = None
    """Default: the domain's open platform (`https://open.feishu.cn` or `https://open.larksuite.com`)."""
    dm_policy: DmPolicy = "pairing"
    allow_from: tuple[str, ...] = ()
    """Sender open_ids (`ou_…`) that may talk in direct messages."""
    group_policy: GroupPolicy = "allowlist"
    group_allow_from: tuple[str, ...] = ()
    groups: dict[str, FeishuGroup] = {}
    """By chat id (`oc_…`)."""
    require_mention: bool = True
    streaming: bool = False
    """Show the reply while it is written: one card patched at most once per second."""
    sender_names: bool = True
    """Look senders' display names up in the contact API (needs `contact:user.base:readonly`), cached."""
    tolerance_seconds: float = Field(default=300.0, gt=0, le=3600)
    """How far `X-Lark-Request-Timestamp` may be from now, either way."""
    token_refresh_margin_seconds: float = Field(default=300.0, ge=0, le=3600)
    """A tenant_access_token is renewed this long before it expires."""
    rate_per_second: float = Field(default=25.0, ge=0, le=1000)
    """Sends per second by this app, all chats together: half of the send API's 50 a second, leaving room
    for card patches. Each chat's own limit (5 a second) is the platform's; its rate-limit codes are backed off."""
    max_message_chars: int = Field(default=4000, ge=100, le=10_000)
    """Longest Markdown per card (the platform caps a card's JSON at 30 KB)."""

    norm_ids = field_validator("allow_from", "group_allow_from", mode="before")(_ids)

    def base_url(self) -> str:
        return (self.api_base_url or DOMAINS[self.domain]).rstrip("/")

    def secret(self, environ: Mapping[str, str] | None = None) -> str | None:
        return secret_value(self.app_secret, self.app_secret_env, environ)

    def encrypt(self, environ: Mapping[str, str] | None = None) -> str | None:
        return secret_value(self.encrypt_key, self.encrypt_key_env, environ)

    def token(self, environ: Mapping[str, str] | None = None) -> str | None:
        return secret_value(self.verification_token, self.verification_token_env, environ)

    def secrets(self, environ: Mapping[str, str] | None = None) -> list[str]:
        return [s for s in (self.secret(environ), self.encrypt(environ), self.token(environ)) if s]


class FeishuSettings(FeishuAccount):
    enabled: bool = True
    accounts: dict[Name, FeishuAccount] = {}

    @model_validator(mode="after")
    def _check_accounts(self) -> FeishuSettings:
        for name, account in self.effective_accounts().items():
            check_access(account.dm_policy, account.allow_from, f"accounts.{name}: " if self.accounts else "")
        return self

    def effective_accounts(self) -> dict[str, FeishuAccount]:
        """Account id → settings: the accounts listed (over the defaults), else the default account if it
        names an `appId`."""
        base = {k: getattr(self, k) for k in FeishuAccount.model_fields}
        if self.accounts:
            return {
                name: FeishuAccount.model_validate({**base, **{k: getattr(a, k) for k in a.model_fields_set}})
                for name, a in self.accounts.items()
            }
        return {"default": FeishuAccount.model_validate(base)} if self.app_id else {}
