"""The Feishu / Lark channel: one self-built app's bot, by HTTP event subscription (`POST /feishu/<account>`,
`mode = "webhook"`) or over the long connection (`mode = "websocket"`, `ws`: no public URL needed).

Inbound requests are checked by `http_route` with this adapter's `open`: the signature over the
raw bytes (`X-Lark-Signature`), the request timestamp, decryption with the Encrypt Key, and the
verification token. Long-connection events arrive unencrypted on a connection the app itself opened
with its secret; they take the same path from `normalize` to the inbox, and are acked once stored.

Replies answer the message they are for (`im/v1/messages/{id}/reply`) as an interactive card
whose Markdown element holds the text; streaming patches that card (at most once a second,
`EditStreamer`), and the final text patches it through the outbox. Each send carries a `uuid`,
which the platform dedupes on for an hour, so a resend after a crash shows no duplicate.
The client is plain aiohttp rather than `lark-oapi`: the SDK is synchronous (requests) and its
base URL is not a setting, and the few calls claw makes are documented JSON.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from claw.channels.access import AccessPolicy
from claw.channels.adapter import ChannelLimits, SendError, Sent, VerifyError
from claw.channels.faults import fault
from claw.channels.feishu.api import TOKEN_CODES, FeishuApi, FeishuError
from claw.channels.feishu.crypto import CryptoError, decrypt, signature_ok
from claw.channels.feishu.names import SenderNames
from claw.channels.feishu.wire import CHANNEL, Envelope, to_inbound
from claw.channels.feishu.ws import FeishuLongConnection
from claw.channels.inbound import Inbound
from claw.channels.tasks import cancel_and_wait
from claw.channels.validation import first_problem
from claw.errors import ClawError, UsageError
from claw.settings.feishu import FeishuAccount
from claw.strict_json import JsonError, loads_strict

if TYPE_CHECKING:
    from claw.channels.host import ChannelHost

log = logging.getLogger(__name__)

MAX_BACKOFF = 60.0
TIMESTAMP, NONCE, SIGNATURE = "X-Lark-Request-Timestamp", "X-Lark-Request-Nonce", "X-Lark-Signature"


class FeishuAdapter:
    channel = CHANNEL

    def __init__(self, account_id: str, settings: FeishuAccount) -> None:
        self.account_id = account_id
        self.settings = settings
        self.limits = ChannelLimits(
            settings.max_message_chars,
            supports_edits=True,
            idempotent_sends=True,
            text_format="markdown",
            rate_per_second=settings.rate_per_second,
        )
        self.streams = settings.streaming
        self.access: AccessPolicy | None = AccessPolicy.of(settings, settings.groups)
        self.bot_open_id: str | None = None
        self.api = FeishuApi(settings.base_url(), settings.app_id or "", settings.secret() or "",
                             refresh_margin=settings.token_refresh_margin_seconds)  # fmt: skip
        self.names = SenderNames(self.api) if settings.sender_names else None
        self.connection: FeishuLongConnection | None = None
        self._host: ChannelHost | None = None
        self._task: asyncio.Task[None] | None = None

    # --- inbound --------------------------------------------------------------------------------

    def open(self, headers: Mapping[str, str], body: bytes, now: float | None = None) -> Envelope:
        """The raw request → its (decrypted) envelope; `VerifyError` unless it is authentic. A
        `url_verification` (which the platform does not sign) passes on the verification token alone."""
        key, token = self.settings.encrypt(), self.settings.token()
        if self.settings.mode != "webhook":
            raise VerifyError(404, "this account is not in webhook mode")
        if not key and not token:
            raise VerifyError(503, "no encryptKey or verificationToken configured")
        given = headers.get(SIGNATURE, "")
        if key and given:
            stamp = headers.get(TIMESTAMP, "")
            if not signature_ok(stamp, headers.get(NONCE, ""), key, body, given):
                raise VerifyError(401, "invalid signature", presented=given)
            if not stamp.isdigit() or abs((now or time.time()) - int(stamp)) > self.settings.tolerance_seconds:
                raise VerifyError(401, "stale or missing timestamp")
        try:
            outer = loads_strict(body.decode("utf-8"))
        except (UnicodeDecodeError, JsonError) as exc:
            raise VerifyError(400, f"invalid JSON: {exc}") from None
        if not isinstance(outer, dict):
            raise VerifyError(400, "the body is not a JSON object")
        if "encrypt" in outer:
            if not key:
                raise VerifyError(400, "an encrypted event, but no encryptKey is configured")
            try:
                outer = loads_strict(decrypt(str(outer["encrypt"]), key))
            except (CryptoError, JsonError) as exc:
                raise VerifyError(400, str(exc)) from None
        elif key:
            raise VerifyError(401, "an unencrypted event, but an encryptKey is configured")
        try:
            envelope = Envelope.model_validate(outer)
        except ValidationError:
            raise VerifyError(400, "not a Feishu event") from None
        challenge = envelope.type == "url_verification"
        if key and not given and not challenge:
            raise VerifyError(401, "missing signature")
        if token and not _same(envelope.verification_token, token):
            raise VerifyError(401, "wrong verification token", presented=envelope.verification_token or None)
        return envelope

    def verify(self, headers: Mapping[str, str], body: bytes) -> None:
        self.open(headers, body)

    def normalize(self, payload: Any) -> list[Inbound]:
        envelope = payload if isinstance(payload, Envelope) else Envelope.model_validate(payload)
        try:
            found = to_inbound(envelope, self.account_id, self.bot_open_id)
        except ValidationError as exc:
            raise ValueError(f"event.{first_problem(exc, '')}") from None
        return [] if found is None else [found]

    async def with_names(self, inbound: list[Inbound]) -> list[Inbound]:
        """`inbound` with the senders' display names, where the contact API gives them (`senderNames`)."""
        return inbound if self.names is None or not inbound else await self.names.named(inbound)

    # --- outbound -------------------------------------------------------------------------------

    async def send(self, reply_to: Mapping[str, Any], text: str, *, idempotency_key: str) -> Sent:
        body: dict[str, Any] = {"msg_type": "interactive", "content": _card(text), "uuid": _uuid(idempotency_key)}
        if reply_to.get("message_id"):
            path = f"im/v1/messages/{reply_to['message_id']}/reply"
            body["reply_in_thread"] = bool(reply_to.get("in_thread"))
        else:  # an automation's message: to the chat
            kind = "open_id" if str(reply_to["chat_id"]).startswith("ou_") else "chat_id"
            path = f"im/v1/messages?receive_id_type={kind}"
            body["receive_id"] = reply_to["chat_id"]
        try:
            data = await self.api.call("POST", path, body)
        except FeishuError as exc:
            raise _send_error(exc) from None
        message_id = data.get("message_id") if isinstance(data, dict) else None
        return Sent(None if message_id is None else str(message_id))

    async def update(self, reply_to: Mapping[str, Any], message_id: str, text: str, *, final: bool = False) -> None:
        try:
            await self.api.call("PATCH", f"im/v1/messages/{message_id}", {"content": _card(text)})
        except FeishuError as exc:
            raise _send_error(exc) from None

    def describe(self) -> dict[str, Any]:
        s = self.settings
        return {"mode": s.mode, "domain": s.domain, "dmPolicy": s.dm_policy, "groupPolicy": s.group_policy,
                "allowFrom": list(s.allow_from), "groups": sorted(s.groups), "streaming": s.streaming}  # fmt: skip

    def check_target(self, target: str) -> str | None:
        """An automation's `feishu:<chat>` target: None if it can be delivered to, else why not (one line)."""
        value = target.strip()
        if not value.startswith(("oc_", "ou_")) or len(value) < 4 or any(c.isspace() or c in "/?#" for c in value):
            return f"invalid feishu target {target!r}: use a chat id (oc_…) or a user's open_id (ou_…)"
        return None

    def address(self, target: str) -> tuple[str, dict[str, Any]]:
        problem = self.check_target(target)
        if problem:
            raise UsageError(problem)
        chat = target.strip()
        return f"{CHANNEL}|{self.account_id}|{chat}|", {"chat_id": chat}

    # --- lifecycle ------------------------------------------------------------------------------

    async def start(self, host: ChannelHost) -> None:
        health = host.health(CHANNEL, self.account_id)
        s = self.settings
        if not s.app_id or not s.secret():
            where = f"env {s.app_secret_env}" if s.app_secret_env else "appSecret"
            health.error(f"no appId or app secret ({where} is empty); the account is not started")
            return
        if s.mode == "webhook" and not s.encrypt() and not s.token():
            health.error("webhook mode without encryptKey or verificationToken: every request is refused")
            return
        self._host = host
        health.state, health.detail = "starting", s.mode
        work = self._identify(host) if s.mode == "webhook" else self._long_connection(host)
        self._task = asyncio.create_task(work, name=f"feishu:{self.account_id}")

    async def _long_connection(self, host: ChannelHost) -> None:
        """Identify (the bot's open_id tells its @mentions), then hold the long connection."""
        await self._identify(host)
        s = self.settings
        self.connection = FeishuLongConnection(s.base_url(), s.app_id or "", s.secret() or "", self._on_ws_event,
                                               host.health(CHANNEL, self.account_id))  # fmt: skip
        await self.connection.run()

    async def _on_ws_event(self, payload: bytes) -> int:
        """One event from the long connection → the code to ack it with: 200 once it is in the inbox (or
        when it is not a message, or cannot be read: a redelivery would not change that), 500 when storing
        failed, so the platform pushes it again."""
        assert self._host is not None
        try:
            inbound = self.normalize(Envelope.model_validate(loads_strict(payload.decode("utf-8"))))
        except (UnicodeDecodeError, JsonError, ValueError) as exc:
            log.warning("feishu %s: skipped an event: %s", self.account_id, exc)
            return 200
        inbound = await self.with_names(inbound)
        try:
            await self._host.accept(CHANNEL, self.account_id, inbound)
        except ClawError as exc:
            log.error("feishu %s: could not store an event: %s", self.account_id, exc)
            return 500
        fault("inbox.after_commit_before_ack")
        return 200

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None
        self.connection = None
        await self.api.close()

    async def _identify(self, host: ChannelHost) -> None:
        """Learn the bot's open_id (to tell an @mention of it), retrying with backoff until it answers."""
        health = host.health(CHANNEL, self.account_id)
        wait = 1.0
        while self.bot_open_id is None:
            try:
                data = await self.api.call("GET", "bot/v3/info")
                bot = data.get("bot") if isinstance(data, dict) else None
                if not isinstance(bot, dict) or not bot.get("open_id"):
                    raise FeishuError("bot/v3/info", "unexpected answer (no open_id)")
                self.bot_open_id = str(bot["open_id"])
            except FeishuError as exc:
                health.error(str(exc))
                log.warning("feishu %s: %s (retrying in %g s)", self.account_id, exc, wait)
                await asyncio.sleep(wait)
                wait = min(wait * 2, MAX_BACKOFF)
        health.ok()
        health.detail = f"webhook at /feishu/{self.account_id}" if self.settings.mode == "webhook" else "identified"


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def _card(markdown: str) -> str:
    card = {"config": {"wide_screen_mode": True, "update_multi": True},
            "elements": [{"tag": "markdown", "content": markdown}]}  # fmt: skip
    return json.dumps(card, ensure_ascii=False)


def _uuid(key: str) -> str:
    """The platform's dedupe key: at most 50 characters."""
    return key if len(key) <= 50 else hashlib.sha256(key.encode()).hexdigest()[:50]


def _send_error(exc: FeishuError) -> SendError:
    if exc.rate_limited:
        return SendError(exc.description, retry_after=exc.retry_after or 1.0)
    if exc.status is None:
        return SendError(exc.description, maybe_sent=exc.sent)
    if exc.status >= 500 or exc.code in TOKEN_CODES:
        return SendError(exc.description)
    return SendError(exc.description, permanent=True)
