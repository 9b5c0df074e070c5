"""`ChannelManager`: one per gateway — the configured adapters (built by `build`, from composition's table
of platforms: see `claw.channels.platform`), gateway.db's channel tables, and health.

It is the `ChannelHost` the adapters hand their messages to. The database opens on first
use, so a gateway that never touches a channel (a one-shot `claw agent -m`) never opens it;
`claw outbox ls` without a running gateway reads it through an in-process gateway.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from claw.channels import inbox
from claw.channels.adapter import ChannelAdapter
from claw.channels.host import Health
from claw.channels.inbound import Inbound
from claw.channels.inbox_commits import GroupCommit
from claw.channels.schema import MIGRATIONS
from claw.store.db import Database

if TYPE_CHECKING:
    from claw.channels.gateway_host import ChannelsHost
    from claw.config import Config

BuildAdapters = Callable[["Config", "str | None"], dict[tuple[str, str], ChannelAdapter]]
"""(config, the gateway token or None) → (channel, account) → adapter: `claw.channels.platform.build_adapters`
over composition's table."""


class ChannelManager:
    def __init__(self, host: ChannelsHost, build: BuildAdapters) -> None:
        self._host = weakref.ref(host)  # the gateway holds this manager (through its capability): no cycle
        self._build = build
        self.paths = host.paths
        self.config = host.config
        self._db: Database | None = None
        self._adapters: dict[tuple[str, str], ChannelAdapter] | None = None
        self._health: dict[tuple[str, str], Health] = {}
        self._commits = GroupCommit(lambda: self.db)
        """Concurrent `accept`s share transactions (claw/channels/inbox_commits.py)."""
        self.inbox_wake = asyncio.Event()
        """Set when new messages are stored (the processor wakes)."""
        self.outbox_wake = asyncio.Event()
        """Set when replies are queued (the delivery worker wakes)."""
        self.running = False

    @property
    def host(self) -> ChannelsHost:
        host = self._host()
        if host is None:
            raise RuntimeError("the gateway of this channel manager is gone")
        return host

    @property
    def db(self) -> Database:
        if self._db is None:
            self._db = Database(self.paths.gateway_db, MIGRATIONS)
        return self._db

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    # --- adapters -------------------------------------------------------------------------------

    @property
    def adapters(self) -> dict[tuple[str, str], ChannelAdapter]:
        """(channel, account) → adapter, built from config on first use (nothing connects until `start`)."""
        if self._adapters is None:
            from claw.gateway_token import resolve_token

            self._adapters = self._build(self.config, resolve_token(self.paths)[0])
        return self._adapters

    def adapter(self, channel: str, account_id: str) -> ChannelAdapter | None:
        return self.adapters.get((channel, account_id))

    def health(self, channel: str, account_id: str) -> Health:
        return self._health.setdefault((channel, account_id), Health())

    # --- ChannelHost ----------------------------------------------------------------------------

    async def accept(
        self, channel: str, account_id: str, inbound: Sequence[Inbound], state: Mapping[str, str] | None = None
    ) -> list[bool]:
        now = time.time()

        def write(conn: sqlite3.Connection) -> list[bool]:
            stored = [inbox.insert(conn, item, now) is not None for item in inbound]
            for key, value in (state or {}).items():
                conn.execute(
                    "INSERT INTO channel_state (channel, account_id, key, value, updated_at) VALUES (?, ?, ?, ?, ?)"
                    " ON CONFLICT (channel, account_id, key) DO UPDATE SET value = excluded.value,"
                    " updated_at = excluded.updated_at",
                    (channel, account_id, key, value, now),
                )
            return stored

        stored = await self._commits.write(write)
        if inbound:
            self.health(channel, account_id).last_inbound_at = now
        if any(stored):
            self.inbox_wake.set()
        return stored

    async def read_state(self, channel: str, account_id: str, key: str) -> str | None:
        found = await self.db.aread(
            lambda c: c.execute(
                "SELECT value FROM channel_state WHERE channel = ? AND account_id = ? AND key = ?",
                (channel, account_id, key),
            ).fetchone()
        )
        return None if found is None else found[0]
