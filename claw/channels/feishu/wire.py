"""Feishu events → `Inbound` messages: the v2 event envelope checked with pydantic, then normalised.

Only `im.message.receive_v1` from users is a message for the agent. `p2p` chats are direct
messages; in groups the bot must be @mentioned (access control decides with `mentioned`). Text
and post (rich text) content become plain text with `@_user_N` placeholders resolved to names
(the bot's own mention removed). A reply chain (`root_id`, or a topic's `thread_id`) is a
thread of its chat, so it gets its own session. The dedupe key is the `event_id`, which a
redelivery repeats (the message id backs it up for events without one).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from claw.channels.inbound import Inbound, clean_text
from claw.vocab.msg_context import MsgContext

CHANNEL = "feishu"
MESSAGE_EVENT = "im.message.receive_v1"


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class UserId(_Wire):
    open_id: str = ""
    user_id: str | None = None
    union_id: str | None = None


class Mention(_Wire):
    key: str
    id: UserId = UserId()
    name: str = ""


class Sender(_Wire):
    sender_id: UserId = UserId()
    sender_type: str = "user"


class Message(_Wire):
    message_id: str
    root_id: str | None = None
    parent_id: str | None = None
    thread_id: str | None = None
    chat_id: str
    chat_type: str
    message_type: str
    content: str = "{}"
    mentions: list[Mention] = []


class MessageEvent(_Wire):
    sender: Sender
    message: Message


class Header(_Wire):
    event_id: str = ""
    event_type: str = ""
    token: str = ""
    app_id: str = ""


class Envelope(_Wire):
    header: Header | None = None
    event: dict[str, Any] | None = None
    type: str | None = None
    token: str | None = None
    challenge: str | None = None

    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    @property
    def verification_token(self) -> str:
        return self.header.token if self.header is not None else (self.token or "")


def to_inbound(envelope: Envelope, account_id: str, bot_open_id: str | None) -> Inbound | None:
    header = envelope.header
    if header is None or header.event_type != MESSAGE_EVENT or envelope.event is None:
        return None
    event = MessageEvent.model_validate(envelope.event)
    msg, sender = event.message, event.sender
    if sender.sender_type != "user" or msg.chat_type not in ("p2p", "group"):
        return None
    text = content_text(msg.message_type, msg.content, msg.mentions, bot_open_id)
    if not text:
        return None
    direct = msg.chat_type == "p2p"
    mentioned = not direct and bot_open_id is not None and any(m.id.open_id == bot_open_id for m in msg.mentions)
    thread = msg.thread_id or msg.root_id or None
    sender_id = sender.sender_id.open_id
    ctx = MsgContext(
        body=text,
        raw_body=text,
        channel=CHANNEL,
        account_id=account_id,
        chat_type="direct" if direct else "group",
        peer_id=sender_id if direct else msg.chat_id,
        sender_id=sender_id,
        sender_name=None,
        thread_id=thread,
        message_id=msg.message_id,
        group_id=None if direct else msg.chat_id,
        command_authorized=False,  # decided by access control before the message is dispatched
    )
    return Inbound(
        ctx=ctx,
        dedupe_key=f"{CHANNEL}|{account_id}|{header.event_id or msg.message_id}",
        conversation=f"{CHANNEL}|{account_id}|{msg.chat_id}|{thread or ''}",
        reply_to={"chat_id": msg.chat_id, "message_id": msg.message_id, "in_thread": bool(msg.thread_id)},
        meta={"mentioned": mentioned, "eventId": header.event_id},
    )


def content_text(message_type: str, content: str, mentions: list[Mention], bot_open_id: str | None) -> str:
    """A message's `content` (a JSON string) as plain text; "" for types that carry no text."""
    try:
        body = json.loads(content)
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    if message_type == "text":
        raw = str(body.get("text") or "")
    elif message_type == "post":
        raw = _post_text(body)
    else:
        return ""
    names = {m.key: ("" if bot_open_id and m.id.open_id == bot_open_id else f"@{m.name}") for m in mentions}
    raw = re.sub(r"@_user_\d+|@_all", lambda m: names.get(m.group(0), "@all" if m.group(0) == "@_all" else ""), raw)
    lines = (re.sub(r"[ \t]{2,}", " ", line).strip() for line in raw.split("\n"))
    return clean_text("\n".join(lines).strip())


def _post_text(body: dict[str, Any]) -> str:
    """Rich text: `{"title", "content": [[element, …], …]}`, possibly under a locale key (`zh_cn`)."""
    if "content" not in body:
        body = next((v for v in body.values() if isinstance(v, dict) and "content" in v), {})
    lines = [str(body["title"])] if body.get("title") else []
    for paragraph in body.get("content") or []:
        if not isinstance(paragraph, list):
            continue
        parts = []
        for el in paragraph:
            if not isinstance(el, dict):
                continue
            tag = el.get("tag")
            if tag in ("text", "a", "code_block", "md"):
                text = str(el.get("text") or "")
                parts.append(f"{text} ({el['href']})" if tag == "a" and el.get("href") else text)
            elif tag == "at":
                key = str(el.get("user_id") or "")
                parts.append(key if key.startswith("@_") else f"@{el.get('user_name') or key}")
            elif tag == "emotion":
                parts.append(f":{el.get('emoji_type', '')}:")
        lines.append("".join(parts))
    return "\n".join(lines)
