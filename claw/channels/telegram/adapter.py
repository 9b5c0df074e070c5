"""The Telegram channel: one bot account, by long polling (`getUpdates` with a persisted offset) or by
webhook (`POST /telegram/<account>`, authenticated by the secret-token header Telegram echoes).

Polling stores each batch of messages and the next offset in one transaction, so a restart
neither loses nor repeats an update. Replies go out as `sendMessage` in Telegram's HTML parse
mode, split at 4096 characters, into the right forum topic, in groups as a reply to the message;
`editMessageText` edits (streaming previews, the final text over a preview). The API base URL is
configurable (`apiBaseUrl`), which is how the tests run against a fake Bot API on loopback.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from claw.channels.access import AccessPolicy
from claw.channels.adapter import ChannelLimits, SendError, Sent, VerifyError
from claw.channels.inbound import Inbound
from claw.channels.tasks import cancel_and_wait
from claw.channels.telegram.api import TelegramApi, TelegramError
from claw.channels.telegram.wire import CHANNEL, BotIdentity, TgUpdate, to_inbound
from claw.channels.validation import first_problem
from claw.errors import ClawError, UsageError
from claw.settings.channels import TelegramAccount

if TYPE_CHECKING:
    from claw.channels.host import ChannelHost

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_BACKOFF = 60.0
_NOT_MODIFIED = "message is not modified"


class TelegramAdapter:
    channel = CHANNEL

    def __init__(self, account_id: str, settings: TelegramAccount) -> None:
        self.account_id = account_id
        self.settings = settings
        self.token = settings.token()
        self.limits = ChannelLimits(
            settings.max_message_chars,
            supports_edits=True,
            idempotent_sends=False,
            text_format="telegram-html",
            rate_per_second=settings.rate_per_second,
        )
        self.streams = settings.streaming
        self.access: AccessPolicy | None = AccessPolicy.of(settings, settings.groups)
        self.bot: BotIdentity | None = None
        self._api = TelegramApi(settings.api_base_url, self.token or "")
        self._task: asyncio.Task[None] | None = None

    # --- inbound --------------------------------------------------------------------------------

    def verify(self, headers: Mapping[str, str], body: bytes) -> None:
        if self.settings.mode != "webhook":
            raise VerifyError(404, "this account is not in webhook mode")
        expected = self.settings.secret_token()
        if not expected:
            raise VerifyError(503, "no webhook secret configured")
        given = headers.get(SECRET_HEADER, "")
        if not given:  # no credential at all: refused, but not counted (an `<img>` or a probe sends none)
            raise VerifyError(401, "invalid secret token")
        if not hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8")):
            # A wrong secret is a guess: the server's failed-auth limiter counts it, as it does a bad token.
            raise VerifyError(401, "invalid secret token", presented=given)

    def normalize(self, payload: Any) -> list[Inbound]:
        try:
            update = TgUpdate.model_validate(payload)
        except ValidationError as exc:
            raise ValueError(first_problem(exc, "update")) from None
        found = to_inbound(update, self.account_id, self.bot, self.settings.mention_patterns)
        return [] if found is None else [found]

    # --- outbound -------------------------------------------------------------------------------

    async def send(self, reply_to: Mapping[str, Any], text: str, *, idempotency_key: str) -> Sent:
        params: dict[str, Any] = {"chat_id": reply_to["chat_id"], "text": text, "parse_mode": "HTML"}
        if reply_to.get("message_thread_id") is not None:
            params["message_thread_id"] = reply_to["message_thread_id"]
        if reply_to.get("reply_to_message_id") is not None:
            params["reply_parameters"] = {
                "message_id": reply_to["reply_to_message_id"],
                "allow_sending_without_reply": True,
            }
        try:
            result = await self._api.call("sendMessage", params)
        except TelegramError as exc:
            raise _send_error(exc) from None
        message_id = result.get("message_id") if isinstance(result, dict) else None
        return Sent(None if message_id is None else str(message_id))

    async def update(self, reply_to: Mapping[str, Any], message_id: str, text: str, *, final: bool = False) -> None:
        params = {"chat_id": reply_to["chat_id"], "message_id": int(message_id), "text": text, "parse_mode": "HTML"}
        try:
            await self._api.call("editMessageText", params)
        except TelegramError as exc:
            if _NOT_MODIFIED not in exc.description.lower():  # the same text again (a resend): already done
                raise _send_error(exc) from None

    def describe(self) -> dict[str, Any]:
        s = self.settings
        return {"mode": s.mode, "dmPolicy": s.dm_policy, "groupPolicy": s.group_policy,
                "allowFrom": list(s.allow_from), "groups": sorted(s.groups), "streaming": s.streaming}  # fmt: skip

    def address(self, target: str) -> tuple[str, dict[str, Any]]:
        """An automation's target `<chatId>` or `<chatId>:<topicId>` → (conversation, reply target)."""
        chat, _, topic = target.strip().partition(":")
        try:
            chat_id, thread = int(chat), int(topic) if topic else None
        except ValueError:
            raise UsageError(f"invalid telegram target {target!r}: use <chatId> or <chatId>:<topicId>") from None
        conversation = f"{CHANNEL}|{self.account_id}|{chat_id}|{thread or ''}"
        return conversation, {"chat_id": chat_id, "message_thread_id": thread}

    # --- lifecycle ------------------------------------------------------------------------------

    async def start(self, host: ChannelHost) -> None:
        health = host.health(CHANNEL, self.account_id)
        if not self.token:
            where = f"env {self.settings.bot_token_env}" if self.settings.bot_token_env else "botToken"
            health.error(f"no bot token ({where} is empty); the account is not started")
            return
        health.state, health.detail = "starting", self.settings.mode
        runner = self._poll(host) if self.settings.mode == "polling" else self._serve_webhook(host)
        self._task = asyncio.create_task(runner, name=f"telegram:{self.account_id}")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None
        await self._api.close()

    async def _identify(self) -> None:
        me = await self._api.call("getMe")
        if not isinstance(me, dict) or not isinstance(me.get("id"), int):
            raise TelegramError("getMe", "unexpected answer (no bot id)")
        self.bot = BotIdentity(me["id"], str(me.get("username") or ""))

    async def _poll(self, host: ChannelHost) -> None:
        """getUpdates in a loop; each batch and the next offset are stored together. Any failure (Telegram,
        the network, gateway.db) is reported in the health, waited out with backoff, and the batch fetched
        again: the offset only moves once its messages are stored."""
        health = host.health(CHANNEL, self.account_id)
        offset: int | None = None
        wait, cleared = 1.0, False
        timeout = self.settings.poll_timeout_seconds
        while True:
            try:
                if offset is None:
                    offset = int(await host.read_state(CHANNEL, self.account_id, "offset") or 0)
                if self.bot is None:
                    await self._identify()
                if not cleared:  # getUpdates is refused while a webhook is set
                    await self._api.call("deleteWebhook", {"drop_pending_updates": False})
                    cleared = True
                    health.ok()
                params = {"offset": offset, "timeout": timeout, "allowed_updates": ["message"]}
                updates = await self._api.call("getUpdates", params, timeout=timeout + 15)
                health.ok(polled=True)
                if isinstance(updates, list) and updates:
                    inbound, next_offset = self._batch(updates, offset)
                    await host.accept(CHANNEL, self.account_id, inbound, {"offset": str(next_offset)})
                    offset = next_offset
                wait = 1.0
            except (TelegramError, ClawError) as exc:
                health.error(str(exc))
                log.warning("telegram %s: %s (retrying in %g s)", self.account_id, exc, wait)
            except Exception as exc:  # a bug: keep polling, keep the traceback
                health.error(f"internal error: {type(exc).__name__}")
                log.exception("telegram %s: polling failed (retrying in %g s)", self.account_id, wait)
            else:
                continue
            await asyncio.sleep(wait)
            wait = min(wait * 2, MAX_BACKOFF)

    def _batch(self, updates: list[Any], offset: int) -> tuple[list[Inbound], int]:
        inbound: list[Inbound] = []
        for raw in updates:
            update_id = raw.get("update_id") if isinstance(raw, dict) else None
            if not isinstance(update_id, int):
                log.warning("telegram %s: skipped an update without an update_id", self.account_id)
                continue
            offset = max(offset, update_id + 1)
            try:
                inbound.extend(self.normalize(raw))
            except ValueError as exc:
                log.warning("telegram %s: skipped update %d: %s", self.account_id, update_id, exc)
        return inbound, offset

    async def _serve_webhook(self, host: ChannelHost) -> None:
        health = host.health(CHANNEL, self.account_id)
        if not self.settings.secret_token():
            health.error("webhook mode without webhookSecret: every request is refused")
            return
        wait = 1.0
        while self.bot is None:
            try:
                await self._identify()
                if self.settings.webhook_url:
                    params = {
                        "url": self.settings.webhook_url,
                        "secret_token": self.settings.secret_token(),
                        "allowed_updates": ["message"],
                    }
                    await self._api.call("setWebhook", params)
            except TelegramError as exc:
                self.bot = None
                health.error(exc.description)
                log.warning("telegram %s: %s (retrying in %g s)", self.account_id, exc, wait)
                await asyncio.sleep(wait)
                wait = min(wait * 2, MAX_BACKOFF)
        health.ok()
        health.detail = f"webhook at /telegram/{self.account_id}"


def _send_error(exc: TelegramError) -> SendError:
    if exc.status == 429:
        return SendError(exc.description, retry_after=exc.retry_after or 1.0)
    if exc.status is None:
        return SendError(exc.description, maybe_sent=exc.sent)
    if exc.status >= 500:
        return SendError(f"HTTP {exc.status}: {exc.description}")
    return SendError(f"HTTP {exc.status}: {exc.description}", permanent=True)
