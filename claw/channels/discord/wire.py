"""Discord `MESSAGE_CREATE` events → `Inbound` messages: the gateway's JSON checked with pydantic, then
normalised.

Only new messages people write (types 0 and 19, a plain message and a reply) with text are messages
for the agent: edits, system messages, webhooks and anything a bot wrote — this one included — are
skipped. A message without `guild_id` is a direct message from its author; in a guild the channel is
the group, and a thread is a thread of its parent channel, so it gets its own session
(`…:discord:group:<parent>:thread:<thread>`) and is judged by the parent's allowlist entry. The
dedupe key is the message id (a snowflake, unique across Discord), which a replayed event repeats.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from claw.channels.inbound import Inbound, clean_text
from claw.vocab.msg_context import MsgContext

CHANNEL = "discord"
MESSAGE_TYPES = (0, 19)
THREAD_TYPES = (10, 11, 12)


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class DcUser(_Wire):
    id: str
    username: str = ""
    global_name: str | None = None
    bot: bool = False


class DcMember(_Wire):
    nick: str | None = None


class DcReferenced(_Wire):
    id: str
    author: DcUser | None = None


class DcMessage(_Wire):
    id: str
    channel_id: str
    guild_id: str | None = None
    author: DcUser
    member: DcMember | None = None
    content: str = ""
    type: int = 0
    webhook_id: str | None = None
    mentions: list[DcUser] = []
    referenced_message: DcReferenced | None = None


@dataclass(frozen=True, slots=True)
class BotIdentity:
    id: str
    username: str


def to_inbound(msg: DcMessage, account_id: str, bot: BotIdentity | None, parent: str | None) -> Inbound | None:
    """`parent`: the parent channel when `msg.channel_id` is a thread (None otherwise)."""
    if msg.author.bot or msg.webhook_id or msg.type not in MESSAGE_TYPES or (bot and msg.author.id == bot.id):
        return None
    if not msg.content.strip():
        return None
    text = clean_text(msg.content)
    direct = msg.guild_id is None
    mentioned = not direct and _mentioned(msg, text, bot)
    body = _strip_mention(text, bot) if bot else text
    group = parent or msg.channel_id
    thread = msg.channel_id if parent else None
    author = msg.author
    name = (msg.member.nick if msg.member else None) or author.global_name or author.username or None
    ctx = MsgContext(
        body=body,
        raw_body=text,
        channel=CHANNEL,
        account_id=account_id,
        chat_type="direct" if direct else "group",
        peer_id=author.id if direct else group,
        sender_id=author.id,
        sender_name=name,
        thread_id=thread,
        message_id=msg.id,
        group_id=None if direct else group,
        guild_id=msg.guild_id,
        command_authorized=False,  # decided by access control before the message is dispatched
    )
    reply_to: dict[str, Any] = {"channel_id": msg.channel_id}
    if not direct:
        reply_to["reply_to"] = msg.id
    return Inbound(
        ctx=ctx,
        dedupe_key=f"{CHANNEL}|{account_id}|{msg.id}",
        conversation=f"{CHANNEL}|{account_id}|{msg.channel_id}",
        reply_to=reply_to,
        meta={"mentioned": mentioned, "guildId": msg.guild_id},
    )


def _mentioned(msg: DcMessage, text: str, bot: BotIdentity | None) -> bool:
    if bot is None:
        return False  # who "the bot" is is not known yet: fail closed
    if any(user.id == bot.id for user in msg.mentions):
        return True
    ref = msg.referenced_message
    if ref is not None and ref.author is not None and ref.author.id == bot.id:
        return True
    return re.search(rf"<@!?{re.escape(bot.id)}>", text) is not None


def _strip_mention(text: str, bot: BotIdentity) -> str:
    """`<@123> hello` → `hello` (the mention of this bot only; other mentions stay)."""
    stripped = re.sub(rf"\s*<@!?{re.escape(bot.id)}>[,:]?\s*", " ", text).strip()
    return stripped or text
