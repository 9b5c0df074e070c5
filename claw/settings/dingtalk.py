"""`[channels.dingtalk]` in config.toml: DingTalk robot accounts, in stream mode or HTTP-callback mode.

Shaped like `[channels.telegram]`: the section is the default account, `accounts.<id>` add more,
each inheriting what it does not set. Access fails closed the same way (dmPolicy `pairing`, groups
`allowlist` with a mention required). The app secret is best named by an environment variable
(`clientSecretEnv`); it both signs HTTP callbacks and fetches the robot's access token.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import Field, field_validator, model_validator

from claw.settings.channel_access import DmPolicy, GroupPolicy, check_access, secret_value
from claw.settings.channel_access import str_ids as _ids
from claw.settings_base import HttpUrl, Name, Section


class DingTalkGroup(Section):
    """`[channels.dingtalk.groups."<conversationId>"]` (or `"*"`): a group the robot may answer in."""

    require_mention: bool | None = None
    allow_from: tuple[str, ...] | None = None

    norm_ids = field_validator("allow_from", mode="before")(_ids)


class DingTalkAccount(Section):
    """One DingTalk robot (an internal app's robot: its AppKey is `clientId`)."""

    mode: Literal["stream", "http"] = "stream"
    """`stream`: the gateway opens DingTalk's WebSocket (no public URL needed); `http`: DingTalk POSTs
    each message to `/dingtalk/<account>`."""
    client_id: str | None = None
    """The app's AppKey (Client ID)."""
    client_secret: str | None = None
    client_secret_env: str | None = "DINGTALK_CLIENT_SECRET"
    robot_code: str | None = None
    """The robot's code for the OpenAPI sends (default: `clientId`, which it is for an app's own robot)."""
    api_base_url: HttpUrl = "https://api.dingtalk.com"
    dm_policy: DmPolicy = "pairing"
    allow_from: tuple[str, ...] = ()
    group_policy: GroupPolicy = "allowlist"
    group_allow_from: tuple[str, ...] = ()
    groups: dict[str, DingTalkGroup] = {}
    require_mention: bool = True
    tolerance_seconds: float = Field(default=3600.0, gt=0, le=3600)
    """How far a callback's `timestamp` may be from now (DingTalk documents one hour)."""
    rate_per_second: float = Field(default=20.0, ge=0, le=10_000)
    max_message_chars: int = Field(default=5000, ge=200, le=20_000)
    """Longest Markdown text per message (DingTalk's limit is about 5,000 characters); longer replies are split."""
    card_template_id: str | None = None
    """An interactive (AI) card template from DingTalk's card platform: when set, a reply is shown while it is
    written, in one card updated at most once a second; without it a reply is one final message."""
    card_content_key: str = "content"
    """The template's Markdown variable that holds the text (the standard AI card template's is `content`)."""
    max_backoff_seconds: float = Field(default=60.0, ge=1, le=3600)
    """Stream mode: the longest wait between reconnects (the wait doubles from 1 s, with jitter)."""

    norm_ids = field_validator("allow_from", "group_allow_from", mode="before")(_ids)

    def secret(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The literal `clientSecret`, else the named environment variable."""
        return secret_value(self.client_secret, self.client_secret_env, environ)

    def robot(self) -> str:
        return self.robot_code or self.client_id or ""


class DingTalkSettings(DingTalkAccount):
    enabled: bool = True
    accounts: dict[Name, DingTalkAccount] = {}
    """By account id, which is the account's URL path in HTTP mode (`/dingtalk/<id>`)."""

    @model_validator(mode="after")
    def _check_accounts(self) -> DingTalkSettings:
        for name, account in self.effective_accounts().items():
            check_access(account.dm_policy, account.allow_from, f"accounts.{name}: " if self.accounts else "")
        return self

    def effective_accounts(self) -> dict[str, DingTalkAccount]:
        """Account id → settings: the accounts listed (over the defaults), else the default account if it
        names a `clientId`."""
        base = {k: getattr(self, k) for k in DingTalkAccount.model_fields}
        if self.accounts:
            return {
                name: DingTalkAccount.model_validate({**base, **{k: getattr(a, k) for k in a.model_fields_set}})
                for name, a in self.accounts.items()
            }
        return {"default": DingTalkAccount.model_validate(base)} if self.client_id else {}
