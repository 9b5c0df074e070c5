"""The `ChannelAdapter` boundary: everything platform-specific about one account of one channel.

An adapter verifies a raw inbound request (headers and the exact bytes received), turns a
platform payload into `Inbound` messages (a `MsgContext` plus what the inbox and the reply
need), sends a rendered part of a reply, and edits a message it sent. Its `limits` say how
long a message may be, whether it can edit, and whether a repeated send is harmless (the
platform dedupes on an idempotency key), which decides what recovery may resend.

Adding a platform is one module with a class that satisfies this protocol, plus its config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from claw.channels.inbound import Inbound
from claw.errors import ClawError

if TYPE_CHECKING:
    from claw.channels.access import AccessPolicy
    from claw.channels.host import ChannelHost

TextFormat = Literal["markdown", "telegram-html", "plain", "dingtalk-markdown", "slack-mrkdwn"]


@dataclass(frozen=True, slots=True)
class ChannelLimits:
    """What a platform accepts."""

    max_length: int
    """Longest message, in characters of the rendered text; longer replies are split."""
    supports_edits: bool
    idempotent_sends: bool
    """True when a send carries a key the platform dedupes on, so resending after a crash is safe."""
    text_format: TextFormat = "markdown"
    rate_per_second: float = 0.0
    """Sends per second this account may make (0: no limit)."""


@dataclass(frozen=True, slots=True)
class Sent:
    """A part the platform accepted, and its id there (for a later edit)."""

    message_id: str | None = None


class VerifyError(ClawError):
    """An inbound request that must be refused; `status` is the HTTP answer, `reason` a short public text.
    `presented`: the credential (signature, secret) the request carried when it was wrong, so the
    server's failed-auth limiter counts it; None when none was carried or it was never checked."""

    def __init__(self, status: int, reason: str, *, presented: str | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.presented = presented


class SendError(ClawError):
    """A send that failed. `permanent`: retrying cannot help (dead letter now). `retry_after`: the platform
    asked for that many seconds. `maybe_sent`: the platform may have taken it (timeout after the request
    went out), so only an idempotent platform may resend."""

    def __init__(
        self, reason: str, *, permanent: bool = False, retry_after: float | None = None, maybe_sent: bool = False
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.permanent = permanent
        self.retry_after = retry_after
        self.maybe_sent = maybe_sent


class ChannelAdapter(Protocol):
    """One account of one channel (a webhook hook, a Telegram bot)."""

    channel: str
    account_id: str
    limits: ChannelLimits
    access: AccessPolicy | None
    """Who may talk (dmPolicy, groups, mentions); None when the adapter proves the sender itself (a signature)."""
    streams: bool
    """Show replies while they are written (edit-streaming; needs `limits.supports_edits`)."""

    def describe(self) -> dict[str, Any]:
        """What `claw channels ls` shows: `mode`, `dmPolicy`, … (wire names)."""
        ...

    def address(self, target: str) -> tuple[str, dict[str, Any]]:
        """A target named by a person (an automation's `--deliver telegram:<chatId>`) → (conversation, reply
        target); `UsageError` if it cannot be parsed."""
        ...

    def verify(self, headers: Mapping[str, str], body: bytes) -> None:
        """Raise `VerifyError` unless the request is authentic and fresh (checked on the raw bytes)."""
        ...

    def normalize(self, payload: Any) -> list[Inbound]:
        """Platform payload → inbound messages (none for events that are not messages for the agent)."""
        ...

    async def send(self, reply_to: Mapping[str, Any], text: str, *, idempotency_key: str) -> Sent:
        """Send one rendered part; raise `SendError` on failure."""
        ...

    async def update(self, reply_to: Mapping[str, Any], message_id: str, text: str, *, final: bool = False) -> None:
        """Replace the text of a sent message (only when `limits.supports_edits`). `final`: this is the
        reply's whole text, from the outbox, not a streamed preview (a platform may close the message then)."""
        ...

    async def start(self, host: ChannelHost) -> None:
        """Begin receiving (a poller starts its loop; a webhook-only adapter does nothing)."""
        ...

    async def stop(self) -> None: ...
