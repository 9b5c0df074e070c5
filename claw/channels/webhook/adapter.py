"""The webhook channel: `POST /hooks/<name>` in, replies POSTed to the hook's `replyUrl` out.

Inbound requests carry `X-Claw-Timestamp: <unix seconds>` and
`X-Claw-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>" with the hook's secret>`;
the signature is checked on the exact bytes received, compared in constant time as bytes, and a
timestamp more than `toleranceSeconds` (300) off either way is refused. The body is
`{"eventId", "conversationId", "senderId", "text", "threadId"?}`; `eventId` is the dedupe key.
The signature proves the sender, so webhook messages skip pairing; their text is still wrapped
in the untrusted-content markers, and a `/command` in it is text unless the hook sets
`allowCommands`. Each conversation has its own session, `webhook:<hook>:<conversationId>`.

A reply is POSTed as JSON `{"conversationId", "threadId", "text", "inReplyTo", "idempotencyKey"}`,
signed the same way, with an `Idempotency-Key` header: a receiver that dedupes on it makes
resending after a crash harmless, so this channel's sends count as idempotent.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import aiohttp
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from claw import __version__
from claw.channels.access import AccessPolicy
from claw.channels.adapter import ChannelLimits, SendError, Sent, VerifyError
from claw.channels.inbound import Inbound, clean_text
from claw.channels.validation import first_problem
from claw.errors import UsageError
from claw.settings.channel_access import secret_value
from claw.settings.channels import WebhookHook, WebhookSettings
from claw.untrusted import wrap_untrusted
from claw.vocab.msg_context import MsgContext

if TYPE_CHECKING:
    from claw.channels.host import ChannelHost

log = logging.getLogger(__name__)

CHANNEL = "webhook"
SIGNATURE_HEADER = "X-Claw-Signature"
TIMESTAMP_HEADER = "X-Claw-Timestamp"
_HEX = re.compile(r"^[0-9a-f]{64}$")
_UNSAFE = re.compile(r"[^a-z0-9_.@+=-]+")


class WebhookBody(BaseModel):
    """The inbound JSON body (unknown keys are ignored: a `sessionKey` in the body chooses nothing)."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=True)

    eventId: str = Field(min_length=1, max_length=256)  # noqa: N815 (the wire's names)
    conversationId: str = Field(min_length=1, max_length=256)  # noqa: N815
    senderId: str = Field(min_length=1, max_length=256)  # noqa: N815
    text: str
    threadId: str | None = Field(default=None, max_length=256)  # noqa: N815


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The `X-Claw-Signature` value for `body` sent at `timestamp`."""
    digest = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


def key_part(value: str) -> str:
    """A session-key segment from an outside id; ids that had to be cleaned keep a hash, so they stay distinct."""
    cleaned = _UNSAFE.sub("-", value.strip().lower())[:64] or "x"
    return cleaned if cleaned == value else f"{cleaned}-{hashlib.sha256(value.encode()).hexdigest()[:8]}"


class WebhookAdapter:
    """One hook (`account_id` is the hook's name)."""

    channel = CHANNEL

    def __init__(
        self, name: str, hook: WebhookHook, settings: WebhookSettings, *, gateway_token: str | None = None
    ) -> None:
        self.account_id = name
        self.hook = hook
        self.settings = settings
        self.limits = ChannelLimits(
            hook.max_reply_chars, supports_edits=False, idempotent_sends=True, rate_per_second=settings.rate_per_second
        )
        self.access: AccessPolicy | None = None  # the signature proves the sender: no pairing
        self.streams = False
        self.secret = secret_value(hook.secret, hook.secret_env)
        self.problem = None if self.secret else "no secret configured: every request is refused"
        if self.secret and gateway_token and hmac.compare_digest(self.secret.encode(), gateway_token.encode()):
            # a hook sender must never hold an operator credential: refuse rather than run with it
            self.secret, self.problem = None, "its secret is the gateway token: every request is refused"
        self._session: aiohttp.ClientSession | None = None

    def describe(self) -> dict[str, Any]:
        return {"mode": "webhook", "path": f"/hooks/{self.account_id}", "dmPolicy": "signature",
                "replyUrl": bool(self.hook.reply_url), "agent": self.hook.agent}  # fmt: skip

    def address(self, target: str) -> tuple[str, dict[str, Any]]:
        """A conversation id → the reply target (a reply with no `inReplyTo`)."""
        if not target.strip():
            raise UsageError("a webhook target is a conversation id")
        conversation = f"{CHANNEL}|{self.account_id}|{target}|"
        return conversation, {"conversationId": target, "threadId": None, "inReplyTo": None}

    # --- inbound --------------------------------------------------------------------------------

    def verify(self, headers: Mapping[str, str], body: bytes, now: float | None = None) -> None:
        if not self.secret:
            raise VerifyError(503, "this hook is not configured correctly")
        given, stamp = headers.get(SIGNATURE_HEADER), headers.get(TIMESTAMP_HEADER)
        if not given:
            raise VerifyError(401, "missing signature")
        if not stamp:
            raise VerifyError(401, "missing timestamp")
        if not stamp.isascii() or not stamp.isdigit() or len(stamp) > 12:
            raise VerifyError(401, "invalid timestamp")
        if abs((time.time() if now is None else now) - int(stamp)) > self.settings.tolerance_seconds:
            raise VerifyError(401, "timestamp outside tolerance")
        scheme, _, hexdigest = given.strip().partition("=")
        if scheme != "sha256" or not _HEX.match(hexdigest):
            raise VerifyError(401, "invalid signature", presented=given)
        if not hmac.compare_digest(sign(self.secret, stamp, body).encode("ascii"), given.strip().encode("ascii")):
            raise VerifyError(401, "invalid signature", presented=given)

    def normalize(self, payload: Any) -> list[Inbound]:
        try:
            body = WebhookBody.model_validate(payload)
        except ValidationError as exc:
            raise ValueError(first_problem(exc, "body")) from None
        text = clean_text(body.text)
        session = f"webhook:{key_part(self.account_id)}:{key_part(body.conversationId)}"
        if body.threadId:
            session += f":thread:{key_part(body.threadId)}"
        ctx = MsgContext(
            body=text,
            body_for_agent=wrap_untrusted(text, f"Webhook {self.account_id}", notice=True),
            raw_body=text,
            channel=CHANNEL,
            account_id=self.account_id,
            chat_type="direct",
            peer_id=body.conversationId,
            sender_id=body.senderId,
            thread_id=body.threadId,
            message_id=body.eventId,
            session_key=session,
            agent_id=self.hook.agent,
            command_authorized=self.hook.allow_commands,
        )
        return [
            Inbound(
                ctx=ctx,
                dedupe_key=f"{CHANNEL}|{self.account_id}|{body.eventId}",
                conversation=f"{CHANNEL}|{self.account_id}|{body.conversationId}|{body.threadId or ''}",
                reply_to={"conversationId": body.conversationId, "threadId": body.threadId, "inReplyTo": body.eventId},
            )
        ]

    # --- outbound -------------------------------------------------------------------------------

    async def send(self, reply_to: Mapping[str, Any], text: str, *, idempotency_key: str) -> Sent:
        if not self.hook.reply_url:
            raise SendError(f"hook {self.account_id} has no replyUrl", permanent=True)
        payload = {**reply_to, "text": text, "idempotencyKey": idempotency_key}
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        stamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            "User-Agent": f"claw/{__version__}",
            "Idempotency-Key": idempotency_key,
            TIMESTAMP_HEADER: stamp,
            SIGNATURE_HEADER: sign(self.secret or "", stamp, body),
        }
        try:
            async with self._client().post(self.hook.reply_url, data=body, headers=headers) as response:
                status, retry_after = response.status, response.headers.get("Retry-After")
        except aiohttp.ClientConnectorError as exc:
            raise SendError(f"cannot reach the reply URL: {exc.os_error or exc}") from None
        except (TimeoutError, aiohttp.ClientError) as exc:
            raise SendError(f"reply URL: {type(exc).__name__}", maybe_sent=True) from None
        if 200 <= status < 300:
            return Sent(None)
        permanent = 400 <= status < 500 and status not in (408, 409, 425, 429)
        raise SendError(f"reply URL answered HTTP {status}", permanent=permanent, retry_after=_seconds(retry_after))

    async def update(self, reply_to: Mapping[str, Any], message_id: str, text: str, *, final: bool = False) -> None:
        raise SendError("webhook replies cannot be edited", permanent=True)

    # --- lifecycle ------------------------------------------------------------------------------

    async def start(self, host: ChannelHost) -> None:
        health = host.health(CHANNEL, self.account_id)
        if self.problem:
            health.error(self.problem)
        else:
            health.ok()
            health.detail = f"POST /hooks/{self.account_id}" + ("" if self.hook.reply_url else " (no replyUrl)")

    async def stop(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    def _client(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        return self._session


def _seconds(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None
