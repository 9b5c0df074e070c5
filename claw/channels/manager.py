"""`ChannelManager`: one per gateway — the configured adapters, gateway.db's channel tables, and health.

It is the `ChannelHost` the adapters hand their messages to. The database opens on first
use, so a gateway that never touches a channel (a one-shot `claw agent -m`) never opens it;
`claw outbox ls` without a running gateway reads it through an in-process gateway.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
import weakref
from collections.abc import Mapping, Sequence
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


class ChannelManager:
    def __init__(self, host: ChannelsHost) -> None:
        self._host = weakref.ref(host)  # the gateway holds this manager (through its capability): no cycle
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
            from claw.server.auth import resolve_token

            self._adapters = build_adapters(self.config, resolve_token(self.paths)[0])
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


def build_adapters(config: object, gateway_token: str | None = None) -> dict[tuple[str, str], ChannelAdapter]:
    from claw.channels.dingtalk import DingTalkAdapter
    from claw.channels.discord import DiscordAdapter
    from claw.channels.feishu import FeishuAdapter
    from claw.channels.slack import SlackAdapter
    from claw.channels.telegram import TelegramAdapter
    from claw.channels.webhook import WebhookAdapter
    from claw.config import Config

    assert isinstance(config, Config)
    settings = config.channels
    found: dict[tuple[str, str], ChannelAdapter] = {}
    for name, hook in settings.webhook.hooks.items():
        found[("webhook", name)] = WebhookAdapter(name, hook, settings.webhook, gateway_token=gateway_token)
    if settings.telegram.enabled:
        for account_id, account in settings.telegram.effective_accounts().items():
            found[("telegram", account_id)] = TelegramAdapter(account_id, account)
    if settings.discord.enabled:
        for account_id, dc in settings.discord.effective_accounts().items():
            found[("discord", account_id)] = DiscordAdapter(account_id, dc)
    if settings.feishu.enabled:
        for account_id, fs in settings.feishu.effective_accounts().items():
            found[("feishu", account_id)] = FeishuAdapter(account_id, fs)
    if settings.dingtalk.enabled:
        for account_id, dt in settings.dingtalk.effective_accounts().items():
            found[("dingtalk", account_id)] = DingTalkAdapter(account_id, dt)
    if settings.slack.enabled:
        for account_id, sk in settings.slack.effective_accounts().items():
            found[("slack", account_id)] = SlackAdapter(account_id, sk)
    return found
