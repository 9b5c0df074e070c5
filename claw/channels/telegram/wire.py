"""Telegram updates → `Inbound` messages: the Bot API's JSON checked with pydantic, then normalised.

Only new text messages (or captions) from people are messages for the agent: edits, channel
posts, service messages and anything sent by a bot — this one included — are skipped. Private
chats are direct messages from the sender; groups and supergroups are group messages, and a
forum topic (`message_thread_id` with `is_topic_message`) is a thread of its group, so it gets
its own session (`…:telegram:group:<chatId>:thread:<topicId>`). The dedupe key is the chat and
message id, which a redelivered update repeats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from claw.channels.inbound import Inbound, clean_text
from claw.vocab.msg_context import MsgContext

CHANNEL = "telegram"


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)


class TgUser(_Wire):
    id: int
    is_bot: bool = False
    first_name: str = ""
    last_name: str | None = None
    username: str | None = None


class TgChat(_Wire):
    id: int
    type: str
    title: str | None = None


class TgEntity(_Wire):
    type: str
    offset: int
    length: int
    user: TgUser | None = None


class TgMessage(_Wire):
    message_id: int
    chat: TgChat
    sender: TgUser | None = Field(default=None, alias="from")
    text: str | None = None
    caption: str | None = None
    entities: list[TgEntity] = []
    caption_entities: list[TgEntity] = []
    message_thread_id: int | None = None
    is_topic_message: bool = False
    reply_to_message: TgMessage | None = None


class TgUpdate(_Wire):
    update_id: int
    message: TgMessage | None = None


@dataclass(frozen=True, slots=True)
class BotIdentity:
    id: int
    username: str


def to_inbound(
    update: TgUpdate, account_id: str, bot: BotIdentity | None, patterns: tuple[str, ...] = ()
) -> Inbound | None:
    msg = update.message
    if msg is None or msg.sender is None or msg.sender.is_bot:
        return None
    raw = msg.text if msg.text is not None else msg.caption
    if not raw or msg.chat.type not in ("private", "group", "supergroup"):
        return None
    text = clean_text(raw)
    direct = msg.chat.type == "private"
    thread = msg.message_thread_id if msg.is_topic_message else None
    mentioned = not direct and _mentioned(msg, text, bot, patterns)
    body = _strip_mention(text, bot) if bot else text
    chat_id, sender = str(msg.chat.id), msg.sender
    name = " ".join(p for p in (sender.first_name, sender.last_name) if p) or sender.username
    ctx = MsgContext(
        body=body,
        raw_body=text,
        channel=CHANNEL,
        account_id=account_id,
        chat_type="direct" if direct else "group",
        peer_id=str(sender.id) if direct else chat_id,
        sender_id=str(sender.id),
        sender_name=name,
        thread_id=None if thread is None else str(thread),
        message_id=str(msg.message_id),
        group_id=None if direct else chat_id,
        command_authorized=False,  # decided by access control before the message is dispatched
    )
    reply_to: dict[str, Any] = {"chat_id": msg.chat.id, "message_thread_id": thread}
    if not direct:
        reply_to["reply_to_message_id"] = msg.message_id
    return Inbound(
        ctx=ctx,
        dedupe_key=f"{CHANNEL}|{account_id}|{chat_id}|{msg.message_id}",
        conversation=f"{CHANNEL}|{account_id}|{chat_id}|{thread or ''}",
        reply_to=reply_to,
        meta={"mentioned": mentioned, "updateId": update.update_id},
    )


def _mentioned(msg: TgMessage, text: str, bot: BotIdentity | None, patterns: tuple[str, ...]) -> bool:
    if bot is None:
        return False  # who "the bot" is is not known yet: fail closed
    replied = msg.reply_to_message
    if replied is not None and replied.sender is not None and replied.sender.id == bot.id:
        return True
    handle = f"@{bot.username}".lower()
    for entity in [*msg.entities, *msg.caption_entities]:
        if entity.type == "mention" and _slice(text, entity).lower() == handle:
            return True
        if entity.type == "text_mention" and entity.user is not None and entity.user.id == bot.id:
            return True
        if entity.type == "bot_command" and _slice(text, entity).lower().endswith(handle):
            return True
    return any(re.search(p, text, re.IGNORECASE) for p in patterns)


def _slice(text: str, entity: TgEntity) -> str:
    """An entity's text: Telegram counts offsets in UTF-16 code units."""
    units = text.encode("utf-16-le")
    return units[entity.offset * 2 : (entity.offset + entity.length) * 2].decode("utf-16-le", "replace")


def _strip_mention(text: str, bot: BotIdentity) -> str:
    """`@bot hello` → `hello`; `/status@bot` → `/status`."""
    handle = re.escape(bot.username)
    text = re.sub(rf"^(/\w+)@{handle}\b", r"\1", text, flags=re.IGNORECASE)
    stripped = re.sub(rf"(^|\s)@{handle}\b[,:]?\s*", r"\1", text, flags=re.IGNORECASE).strip()
    return stripped or text
