"""`[channels.webhook]`: the signed inbound webhooks by name, and their limits."""

from __future__ import annotations

from pydantic import Field

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
