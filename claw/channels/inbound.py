"""`Inbound`: one platform message, normalised, on its way into the inbox.

Its own module because both sides of the adapter boundary speak it: adapters produce it
(`ChannelAdapter.normalize`, `claw.channels.adapter`), and the gateway side stores it
(`ChannelHost.accept`, `claw.channels.host`) — neither of those modules imports the other for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from claw.vocab.msg_context import MsgContext


@dataclass(frozen=True, slots=True)
class Inbound:
    """One normalised inbound message, ready for the inbox."""

    ctx: MsgContext
    dedupe_key: str
    """Unique per platform event (the inbox's UNIQUE key): `<channel>|<account>|<platform event id>`."""
    conversation: str
    """Replies to one conversation go out one at a time, in order: this names it."""
    reply_to: Mapping[str, Any] = field(default_factory=dict)
    """Where a reply goes, in the adapter's own terms (JSON-serialisable: chat id, thread, message id …)."""
    meta: Mapping[str, Any] = field(default_factory=dict)
    """Facts access control needs that `MsgContext` does not carry (`mentioned`: the bot was addressed)."""


def clean_text(text: str) -> str:
    """Inbound text made safe to store: lone surrogates (valid in JSON, not in UTF-8) become U+FFFD."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
