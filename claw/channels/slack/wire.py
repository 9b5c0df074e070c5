"""Slack Events API payloads (`event_callback`, over HTTP or inside a Socket Mode envelope) → `Inbound`
messages: the JSON checked with pydantic, then normalised.

Messages for the agent are new messages people write: `message` events without a subtype (or a
`thread_broadcast` / `file_share` with text) and `app_mention`s. Edits (`message_changed`),
deletions, joins and everything a bot wrote — this one included, by `bot_id` or by its user id from
`auth.test` — are skipped. A direct message (`im`) is from its author; in a channel the channel is the
group, and a message in a thread (`thread_ts` other than its own `ts`) gets the thread's session
(`…:slack:group:<channel>:thread:<thread_ts>`) and its reply goes into that thread.

The dedupe key is `slack|<account>|<channel>|<ts>`: a message's `ts` is unique in its channel, and the
same message reaching the bot twice — a redelivery, or once as `message` and once as `app_mention` —
repeats it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from claw.channels.inbound import Inbound, clean_text
from claw.vocab.msg_context import MsgContext

CHANNEL = "slack"
MESSAGE_EVENTS = ("message", "app_mention")
TEXT_SUBTYPES = (None, "thread_broadcast", "file_share")
_LABELLED_LINK = re.compile(r"<((?:https?|mailto):[^|>\s]+)\|([^>]+)>")
_BARE_LINK = re.compile(r"<((?:https?|mailto):[^|>\s]+)>")


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class SlEvent(_Wire):
    type: str
    channel: str | None = None
    channel_type: str | None = None
    user: str | None = None
    bot_id: str | None = None
    subtype: str | None = None
    text: str = ""
    ts: str | None = None
    thread_ts: str | None = None
    team: str | None = None


class SlAuthorization(_Wire):
    user_id: str | None = None
    is_bot: bool = False


class SlCallback(_Wire):
    """The outer JSON of an Events API request: `url_verification` or `event_callback`."""

    type: str
    challenge: str | None = None
    event_id: str | None = None
    team_id: str | None = None
    event: SlEvent | None = None
    authorizations: list[SlAuthorization] = []


@dataclass(frozen=True, slots=True)
class BotIdentity:
    """This app's bot user (`auth.test`'s `user_id`, `bot_id`)."""

    user_id: str
    bot_id: str | None = None


def bot_user_of(callback: SlCallback, known: BotIdentity | None) -> str | None:
    """Who "the bot" is for this event: from `auth.test`, else the event's own bot authorization."""
    if known is not None:
        return known.user_id
    return next((a.user_id for a in callback.authorizations if a.is_bot and a.user_id), None)


def is_message_for_agent(callback: SlCallback, bot: BotIdentity | None) -> bool:
    ev = callback.event
    if callback.type != "event_callback" or ev is None or ev.type not in MESSAGE_EVENTS:
        return False
    if ev.subtype not in TEXT_SUBTYPES or ev.bot_id or not ev.user or not ev.channel or not ev.ts:
        return False
    if ev.user == bot_user_of(callback, bot) or (bot is not None and bot.bot_id and ev.bot_id == bot.bot_id):
        return False
    return bool(ev.text.strip())


def to_inbound(
    callback: SlCallback, account_id: str, bot: BotIdentity | None, sender_name: str | None = None
) -> Inbound | None:
    if not is_message_for_agent(callback, bot):
        return None
    ev = callback.event
    assert ev is not None and ev.channel and ev.ts and ev.user
    text = readable(clean_text(ev.text))
    bot_user = bot_user_of(callback, bot)
    direct = ev.channel_type == "im" or (ev.channel_type is None and ev.channel.startswith("D"))
    mention = f"<@{bot_user}>" if bot_user else None
    mentioned = not direct and (ev.type == "app_mention" or (mention is not None and mention in ev.text))
    body = _strip_mention(text, mention) if mention else text
    thread = ev.thread_ts if ev.thread_ts and ev.thread_ts != ev.ts else None
    ctx = MsgContext(
        body=body,
        raw_body=text,
        channel=CHANNEL,
        account_id=account_id,
        chat_type="direct" if direct else "group",
        peer_id=ev.user if direct else ev.channel,
        sender_id=ev.user,
        sender_name=sender_name,
        thread_id=thread,
        message_id=ev.ts,
        group_id=None if direct else ev.channel,
        team_id=callback.team_id or ev.team,
        command_authorized=False,  # decided by access control before the message is dispatched
    )
    reply_to: dict[str, Any] = {"channel": ev.channel}
    if thread:
        reply_to["thread_ts"] = thread
    return Inbound(
        ctx=ctx,
        dedupe_key=f"{CHANNEL}|{account_id}|{ev.channel}|{ev.ts}",
        conversation=f"{CHANNEL}|{account_id}|{ev.channel}|{thread or ''}",
        reply_to=reply_to,
        meta={"mentioned": mentioned, "eventId": callback.event_id},
    )


def readable(text: str) -> str:
    """Slack's wire text for the model: `<url|label>` → `label (url)`, `<url>` → `url`, and the three
    escaped characters (`&amp;`, `&lt;`, `&gt;`) back. User mentions (`<@U…>`) stay as they are."""
    text = _LABELLED_LINK.sub(lambda m: f"{m.group(2)} ({m.group(1)})", text)
    text = _BARE_LINK.sub(lambda m: m.group(1), text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _strip_mention(text: str, mention: str) -> str:
    """`<@UBOT> hello` → `hello` (this bot's mention only; other mentions stay)."""
    stripped = re.sub(rf"\s*{re.escape(mention)}[,:]?\s*", " ", text).strip()
    return stripped or text


def display_name(user: Any) -> str | None:
    """`users.info`'s user → the name people see: the profile's display name, else the real name."""
    if not isinstance(user, dict):
        return None
    profile = value if isinstance(value := user.get("profile"), dict) else {}
    for name in (profile.get("display_name"), profile.get("real_name"), user.get("real_name"), user.get("name")):
        if isinstance(name, str) and name.strip():
            return html.unescape(name.strip())[:80]
    return None
