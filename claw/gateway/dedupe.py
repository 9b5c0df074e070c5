"""Inbound dedupe: a platform redelivering the same message never starts a second run."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from claw.gateway.ttl_cache import TtlCache
from claw.vocab.msg_context import MsgContext

log = logging.getLogger(__name__)

DEDUPE_TTL_SECONDS = 20 * 60
DEDUPE_MAX_ENTRIES = 5000


def dedupe_key(ctx: MsgContext, session_key: str) -> str | None:
    """`channel|account|sessionKey|peer|thread|messageId`, empty parts dropped; None without a message id."""
    if not ctx.message_id or not ctx.channel:
        return None
    parts = [
        ctx.channel.lower(),
        ctx.account_id,
        session_key,
        ctx.peer_id,
        ctx.thread_id or "",
        ctx.message_id,
    ]
    return "|".join(p for p in parts if p)


class InboundDedupe:
    """Remembers inbound message keys for 20 minutes (at most 5000)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._seen: TtlCache[bool] = TtlCache(DEDUPE_TTL_SECONDS, DEDUPE_MAX_ENTRIES, clock)

    def is_duplicate(self, ctx: MsgContext, session_key: str) -> bool:
        key = dedupe_key(ctx, session_key)
        if key is None:
            return False
        if self._seen.seen(key, True):
            log.info("inbound dedupe: skipped %s", key)
            return True
        return False
