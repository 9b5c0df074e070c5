"""The DingTalk channel: one internal app's robot, in Stream mode (`DingTalkStream`, the default: no public
URL) or by HTTP callback (`POST /dingtalk/<account>`, checked with the `timestamp` + `sign` headers).

Replies are DingTalk Markdown (`msgtype: markdown`, a title and the text; `render` turns the model's
Markdown into DingTalk's subset), split at `maxMessageChars`. Each goes through the message's
`sessionWebhook` while that is valid (its `sessionWebhookExpiredTime`, less a margin), else through the
robot OpenAPI: `oToMessages/batchSend` to the sender in a single chat, `groupMessages/send` to the
conversation in a group, with an access token that `DingTalkApi` caches and renews. A session webhook
is only used when it points at DingTalk (or at the configured API host): the URL comes from the
message, and an HTTP callback's signature covers only its timestamp.

DingTalk dedupes no send, so a reply interrupted by a crash is not resent blindly (the outbox marks it
`unknown_after_send`). Without a card template a reply is one final message (or its parts), never a
message per token. With `cardTemplateId`, the streaming preview (`EditStreamer`) is an interactive card
(`DingTalkCards`), updated at most once a second; the final text replaces its content and finalizes it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
import urllib.parse
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from claw.channels.access import AccessPolicy
from claw.channels.adapter import ChannelLimits, SendError, Sent, VerifyError
from claw.channels.dingtalk.api import DingTalkApi, DingTalkError
from claw.channels.dingtalk.cards import DingTalkCards
from claw.channels.dingtalk.stream import DingTalkStream
from claw.channels.dingtalk.wire import CHANNEL, DtMessage, SignCache, check_sign, to_inbound
from claw.channels.faults import fault
from claw.channels.inbound import Inbound
from claw.channels.tasks import cancel_and_wait
from claw.channels.validation import first_problem
from claw.errors import UsageError
from claw.settings.dingtalk import DingTalkAccount
from claw.strict_json import JsonError, loads_strict

if TYPE_CHECKING:
    from claw.channels.host import ChannelHost

log = logging.getLogger(__name__)

WEBHOOK_MARGIN_MS = 60_000
"""A session webhook this close to its expiry is not used (the send could arrive after it)."""
USER_PREFIX = "user:"
PREVIEW_KEY = "preview-"
"""How `EditStreamer` keys the send of its preview: with a card template, that send creates the card."""
_TARGET = re.compile(r"^[\w$+=/.:@-]{1,128}$")
_TITLE_MARKUP = re.compile(r"[*_`#>\[\]]|\(https?://[^)]*\)")


class DingTalkAdapter:
    channel = CHANNEL

    def __init__(self, account_id: str, settings: DingTalkAccount) -> None:
        self.account_id = account_id
        self.settings = settings
        self.streams = settings.card_template_id is not None
        self.limits = ChannelLimits(
            settings.max_message_chars,
            supports_edits=self.streams,  # a robot message cannot be edited; a card can
            idempotent_sends=False,
            text_format="dingtalk-markdown",
            rate_per_second=settings.rate_per_second,
        )
        self.access: AccessPolicy | None = AccessPolicy.of(settings, settings.groups)
        self.api = DingTalkApi(settings.api_base_url, settings.client_id or "", settings.secret() or "")
        self.cards = (
            None
            if settings.card_template_id is None
            else DingTalkCards(self.api, settings.card_template_id, settings.card_content_key, settings.robot())
        )
        self.stream: DingTalkStream | None = None
        self.signs = SignCache(settings.tolerance_seconds)
        self._host: ChannelHost | None = None
        self._task: asyncio.Task[None] | None = None

    # --- inbound --------------------------------------------------------------------------------

    def open(self, headers: Mapping[str, str], body: bytes, now: float | None = None) -> DtMessage:
        """An HTTP callback → its message; `VerifyError` unless it is signed with the app secret, fresh,
        and a robot message."""
        secret = self.settings.secret()
        if self.settings.mode != "http":
            raise VerifyError(404, "this account is in stream mode, not http")
        if not secret:
            raise VerifyError(503, "no client secret configured")
        now = time.time() if now is None else now
        problem = check_sign(headers, secret, now, self.settings.tolerance_seconds)
        if problem:
            raise VerifyError(401, problem, presented=headers.get("sign") if problem == "invalid sign" else None)
        try:
            raw = loads_strict(body.decode("utf-8"))
        except (UnicodeDecodeError, JsonError) as exc:
            raise VerifyError(400, f"invalid JSON: {exc}") from None
        try:
            message = DtMessage.model_validate(raw)
        except ValidationError as exc:
            raise VerifyError(400, f"not a DingTalk robot message ({first_problem(exc, 'message')})") from None
        replayed = self.signs.bind(headers, message.msgId, now)
        if replayed:
            raise VerifyError(401, replayed)
        return message

    def verify(self, headers: Mapping[str, str], body: bytes) -> None:
        self.open(headers, body)

    def normalize(self, payload: Any) -> list[Inbound]:
        try:
            msg = payload if isinstance(payload, DtMessage) else DtMessage.model_validate(payload)
        except ValidationError as exc:
            raise ValueError(first_problem(exc, "message")) from None
        found = to_inbound(msg, self.account_id)
        return [] if found is None else [found]

    async def _on_stream(self, data: dict[str, Any]) -> None:
        """One robot message from the stream; returns once it is in the inbox (then it is acknowledged)."""
        assert self._host is not None
        try:
            inbound = self.normalize(data)
        except ValueError as exc:
            log.warning("dingtalk %s: skipped a message: %s", self.account_id, exc)
            inbound = []
        fault("webhook.before_inbox_commit")
        await self._host.accept(CHANNEL, self.account_id, inbound)
        fault("inbox.after_commit_before_ack")

    # --- outbound -------------------------------------------------------------------------------

    async def send(self, reply_to: Mapping[str, Any], text: str, *, idempotency_key: str) -> Sent:
        if self.streams and idempotency_key.startswith(PREVIEW_KEY):
            return await self._create_card(reply_to, text, idempotency_key)
        title = _title(text)
        hook = self._usable_webhook(reply_to)
        if hook is not None:
            try:
                await self.api.webhook(hook, {"msgtype": "markdown", "markdown": {"title": title, "text": text}})
                return Sent(None)
            except DingTalkError as exc:
                if exc.rate_limited:
                    raise SendError(exc.description, retry_after=exc.retry_after or 2.0) from None
                if exc.status is None and exc.sent:  # timed out: it may have arrived
                    raise SendError(exc.description, maybe_sent=True) from None
                log.info("dingtalk %s: session webhook refused (%s); sending through the OpenAPI",
                         self.account_id, exc.description)  # fmt: skip
        return await self._send_openapi(reply_to, title, text)

    def _usable_webhook(self, reply_to: Mapping[str, Any]) -> str | None:
        hook, expires = reply_to.get("session_webhook"), reply_to.get("session_webhook_expires_ms")
        if not isinstance(hook, str) or not isinstance(expires, int):
            return None
        if time.time() * 1000 >= expires - WEBHOOK_MARGIN_MS:
            return None
        parts = urllib.parse.urlsplit(hook)
        api_host = urllib.parse.urlsplit(self.settings.api_base_url).netloc
        trusted = parts.scheme == "https" and (parts.hostname or "").endswith(".dingtalk.com")
        if not trusted and parts.netloc != api_host:
            log.warning("dingtalk %s: ignored a session webhook that is not DingTalk's", self.account_id)
            return None
        return hook

    async def _send_openapi(self, reply_to: Mapping[str, Any], title: str, text: str) -> Sent:
        param = json.dumps({"title": title, "text": text}, ensure_ascii=False)
        body: dict[str, Any] = {"robotCode": self.settings.robot(), "msgKey": "sampleMarkdown", "msgParam": param}
        if reply_to.get("direct"):
            path = "v1.0/robot/oToMessages/batchSend"
            body["userIds"] = [str(reply_to["staff_id"])]
        else:
            path = "v1.0/robot/groupMessages/send"
            body["openConversationId"] = str(reply_to["conversation_id"])
        try:
            answer = await self.api.call(path, body)
        except DingTalkError as exc:
            raise _send_error(exc) from None
        answer = answer if isinstance(answer, dict) else {}
        if answer.get("flowControlledStaffIdList"):
            raise SendError("the recipient is flow-controlled (too many messages)", retry_after=2.0)
        if answer.get("invalidStaffIdList"):
            raise SendError("DingTalk says the recipient's staff id is invalid", permanent=True)
        key = answer.get("processQueryKey")
        return Sent(None if key is None else str(key))

    async def _create_card(self, reply_to: Mapping[str, Any], text: str, key: str) -> Sent:
        assert self.cards is not None
        try:
            return Sent(await self.cards.create(reply_to, text, f"{self.account_id}|{key}"))
        except DingTalkError as exc:
            raise _send_error(exc) from None

    async def update(self, reply_to: Mapping[str, Any], message_id: str, text: str, *, final: bool = False) -> None:
        """A streaming card's new content (`DingTalkCards.show`), finalized with the reply's whole text;
        a plain robot message cannot be edited."""
        if self.cards is None:
            raise SendError("dingtalk robot messages cannot be edited", permanent=True)
        try:
            await self.cards.show(message_id, text, final=final)
        except DingTalkError as exc:
            raise _send_error(exc) from None

    def describe(self) -> dict[str, Any]:
        s = self.settings
        found: dict[str, Any] = {"mode": s.mode, "dmPolicy": s.dm_policy, "groupPolicy": s.group_policy,
                                 "allowFrom": list(s.allow_from), "groups": sorted(s.groups),
                                 "streaming": self.streams}  # fmt: skip
        if s.mode == "http":
            found["path"] = f"/dingtalk/{self.account_id}"
        return found

    def check_target(self, target: str) -> str | None:
        """An automation's `dingtalk:<openConversationId>` (a group) or `dingtalk:user:<staffId>` (a single
        chat): None if it can be delivered to, else why not (one line)."""
        value = target.strip()
        ident = value.removeprefix(USER_PREFIX)
        if not ident or not _TARGET.match(ident):
            return (f"invalid dingtalk target {target!r}: use a group's openConversationId (cid…)"
                    " or user:<staffId> for a single chat")  # fmt: skip
        return None

    def address(self, target: str) -> tuple[str, dict[str, Any]]:
        problem = self.check_target(target)
        if problem:
            raise UsageError(problem)
        value = target.strip()
        if value.startswith(USER_PREFIX):
            staff = value.removeprefix(USER_PREFIX)
            return f"{CHANNEL}|{self.account_id}|{value}", {"direct": True, "staff_id": staff}
        return f"{CHANNEL}|{self.account_id}|{value}", {"direct": False, "conversation_id": value}

    # --- lifecycle ------------------------------------------------------------------------------

    async def start(self, host: ChannelHost) -> None:
        health = host.health(CHANNEL, self.account_id)
        s = self.settings
        if not s.client_id or not s.secret():
            where = f"env {s.client_secret_env}" if s.client_secret_env else "clientSecret"
            health.error(f"no clientId or client secret ({where} is empty); the account is not started")
            return
        self._host = host
        if s.mode == "http":
            health.ok()
            health.detail = f"http callback at /dingtalk/{self.account_id}"
            return
        health.state, health.detail = "starting", "stream"
        self.stream = DingTalkStream(self.api, s.client_id, s.secret() or "", self._on_stream, health,
                                     max_backoff=s.max_backoff_seconds)  # fmt: skip
        self._task = asyncio.create_task(self.stream.run(), name=f"dingtalk:{self.account_id}")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None
        await self.api.close()


def _title(text: str) -> str:
    """The message's title (DingTalk shows it in notifications and the chat list): its first line, bare."""
    for line in text.split("\n"):
        bare = " ".join(_TITLE_MARKUP.sub("", line).replace("\u00a0", " ").split())
        if bare:
            return bare if len(bare) <= 30 else bare[:29] + "…"
    return "Reply"


def _send_error(exc: DingTalkError) -> SendError:
    if exc.rate_limited:
        return SendError(exc.description, retry_after=exc.retry_after or 2.0)
    if exc.status is None:
        return SendError(exc.description, maybe_sent=exc.sent)
    if exc.status >= 500 or exc.status == 401:
        return SendError(exc.description)
    return SendError(exc.description, permanent=True)
