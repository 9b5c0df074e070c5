"""Senders' display names for Feishu messages: the event names only an open_id, so the name is asked of the
contact API (`GET contact/v3/users/{open_id}?user_id_type=open_id`, scope `contact:user.base:readonly`).

Names are cached (an hour); a failed lookup is cached too, for ten minutes, so an app without the
contact scope costs one call per sender per ten minutes, never one per message. Each lookup is cut
off after `timeout` seconds: the message is stored (and acknowledged) without a name rather than late.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace

from claw.channels.feishu.api import FeishuApi, FeishuError
from claw.channels.inbound import Inbound

log = logging.getLogger(__name__)

NAME_TTL = 3600.0
MISS_TTL = 600.0
LOOKUP_TIMEOUT = 1.5
MAX_ENTRIES = 2000


class SenderNames:
    def __init__(self, api: FeishuApi, *, timeout: float = LOOKUP_TIMEOUT) -> None:
        self._api = api
        self._timeout = timeout
        self._cache: dict[str, tuple[float, str | None]] = {}
        self.lookups = 0

    async def name(self, open_id: str) -> str | None:
        now = time.monotonic()
        cached = self._cache.get(open_id)
        if cached is not None and cached[0] > now:
            return cached[1]
        self.lookups += 1
        found: str | None = None
        try:
            data = await asyncio.wait_for(self._api.call("GET", f"contact/v3/users/{open_id}?user_id_type=open_id"),
                                          self._timeout)  # fmt: skip
            user = data.get("user") if isinstance(data, dict) else None
            if isinstance(user, dict) and isinstance(user.get("name"), str) and user["name"].strip():
                found = user["name"].strip()
        except (FeishuError, TimeoutError) as exc:
            log.info("feishu: no name for %s: %s", open_id, exc or "timed out")
        if len(self._cache) >= MAX_ENTRIES:
            self._cache = {k: v for k, v in self._cache.items() if v[0] > now}
            if len(self._cache) >= MAX_ENTRIES:
                self._cache.clear()
        self._cache[open_id] = (now + (NAME_TTL if found else MISS_TTL), found)
        return found

    async def named(self, inbound: list[Inbound]) -> list[Inbound]:
        """`inbound` with each sender's display name filled in where the contact API gives one."""
        out = []
        for item in inbound:
            sender = item.ctx.sender_id
            name = await self.name(sender) if sender and item.ctx.sender_name is None else None
            out.append(item if name is None else replace(item, ctx=replace(item.ctx, sender_name=name)))
        return out
