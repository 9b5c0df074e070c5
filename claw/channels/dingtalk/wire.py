"""DingTalk robot callbacks: the `timestamp` + `sign` check, and a message → `Inbound`.

DingTalk signs each HTTP callback with `sign = base64(HMAC-SHA256(secret, timestamp + "\\n" + secret))`,
`timestamp` in milliseconds, and documents a one-hour window; both travel as headers. The signature
covers neither the body nor the message id, so anyone who saw one pair could sign any message with it
for the rest of the hour: `SignCache` binds each pair to the first `msgId` it came with, and refuses it
with any other (the same `msgId` again is a redelivery, which the inbox dedupes). A message
(`conversationType` "1": a single chat, "2": a group, where DingTalk only delivers @mentions of the
robot) is keyed by its `msgId`, which a redelivery repeats. Single chats are sessions of the sender
(`senderStaffId`), groups of the conversation (`conversationId`). The reply target keeps the
`sessionWebhook` and its expiry, so a reply can use it while it is valid.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from claw.channels.inbound import Inbound, clean_text
from claw.vocab.msg_context import MsgContext

CHANNEL = "dingtalk"


def sign(timestamp: str, secret: str) -> str:
    """DingTalk's signature of a callback (or of a custom robot's webhook call)."""
    digest = hmac.new(secret.encode("utf-8"), f"{timestamp}\n{secret}".encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def check_sign(headers: Mapping[str, str], secret: str, now: float, tolerance: float) -> str | None:
    """None if the headers carry a valid, fresh signature; else why not (a short public reason)."""
    timestamp, given = headers.get("timestamp", ""), headers.get("sign", "")
    if not timestamp or not given:
        return "missing timestamp or sign"
    if not timestamp.isdigit() or abs(now - int(timestamp) / 1000) > tolerance:
        return "stale or invalid timestamp"
    if not hmac.compare_digest(given.encode("utf-8"), sign(timestamp, secret).encode("utf-8")):
        return "invalid sign"
    return None


class SignCache:
    """The `(timestamp, sign)` pairs seen within the window, each with the `msgId` it first came with.

    Kept in memory, at most `limit` pairs (the oldest are dropped first); a pair is forgotten once its
    timestamp is out of the window, when `check_sign` refuses it anyway."""

    def __init__(self, tolerance: float, limit: int = 100_000) -> None:
        self.tolerance = tolerance
        self.limit = limit
        self._seen: OrderedDict[tuple[str, str], tuple[str, float]] = OrderedDict()

    def bind(self, headers: Mapping[str, str], msg_id: str, now: float) -> str | None:
        """Record the pair of a signed request for `msg_id`; why it is refused when it came with another."""
        while self._seen:  # the oldest first: out of the window, or over the limit
            key, (_, expires) = next(iter(self._seen.items()))
            if expires >= now and len(self._seen) < self.limit:
                break
            del self._seen[key]
        pair = (headers.get("timestamp", ""), headers.get("sign", ""))
        seen = self._seen.get(pair)
        if seen is not None:
            return None if seen[0] == msg_id else "replayed timestamp and sign"
        self._seen[pair] = (msg_id, int(pair[0]) / 1000 + self.tolerance)
        return None


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class DtText(_Wire):
    content: str = ""


class DtMessage(_Wire):
    """The robot message callback's fields claw uses (camelCase as DingTalk sends them)."""

    msgId: str  # noqa: N815
    msgtype: str = "text"
    text: DtText | None = None
    conversationType: str  # noqa: N815
    conversationId: str  # noqa: N815
    conversationTitle: str | None = None  # noqa: N815
    senderStaffId: str | None = None  # noqa: N815
    senderId: str | None = None  # noqa: N815
    senderNick: str | None = None  # noqa: N815
    isInAtList: bool = False  # noqa: N815
    sessionWebhook: str | None = None  # noqa: N815
    sessionWebhookExpiredTime: int | None = None  # noqa: N815
    robotCode: str | None = None  # noqa: N815


def to_inbound(msg: DtMessage, account_id: str) -> Inbound | None:
    """A text message from a person → `Inbound`; None for other types or an empty text."""
    if msg.msgtype != "text" or msg.text is None or not msg.text.content.strip():
        return None
    if msg.conversationType not in ("1", "2"):
        return None
    sender = msg.senderStaffId or msg.senderId
    if not sender:
        return None
    direct = msg.conversationType == "1"
    text = clean_text(msg.text.content.strip())
    ctx = MsgContext(
        body=text,
        raw_body=text,
        channel=CHANNEL,
        account_id=account_id,
        chat_type="direct" if direct else "group",
        peer_id=sender if direct else msg.conversationId,
        sender_id=sender,
        sender_name=msg.senderNick,
        message_id=msg.msgId,
        group_id=None if direct else msg.conversationId,
        command_authorized=False,  # decided by access control
    )
    reply_to: dict[str, Any] = {
        "conversation_id": msg.conversationId,
        "direct": direct,
        "staff_id": sender if direct else None,
        "session_webhook": msg.sessionWebhook,
        "session_webhook_expires_ms": msg.sessionWebhookExpiredTime,
    }
    return Inbound(
        ctx=ctx,
        dedupe_key=f"{CHANNEL}|{account_id}|{msg.msgId}",
        conversation=f"{CHANNEL}|{account_id}|{msg.conversationId}",
        reply_to=reply_to,
        # DingTalk only delivers a group message when the robot is @mentioned; isInAtList says so too.
        meta={"mentioned": direct or msg.isInAtList},
    )
