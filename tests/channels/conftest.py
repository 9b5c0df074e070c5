"""A real in-process gateway with the channel service and the network server on 127.0.0.1:<ephemeral>,
on a temporary CLAW_HOME, against the scripted model server, a fake Telegram Bot API and a reply receiver."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from claw.channels.capability import ChannelsCapability
from claw.channels.manager import ChannelManager
from claw.channels.service import ChannelService
from claw.compose import build_gateway
from claw.config import load_config
from claw.gateway.gateway import Gateway
from claw.paths import Paths
from claw.server.auth import AuthLimiter
from claw.server.server import GatewayServer
from claw.server.settings import ServerSettings
from tests.channels.fakes import BOT_TOKEN, FakeTelegram, ReplyReceiver
from tests.support.fixtures import ClawEnv

TOKEN = "tok-channels-5f1e2d3c4b5a"
HOOK_SECRET = "hook-secret-8c7d6e5f4a3b2c1d"

FAST_OUTBOX = """
[channels.outbox]
baseDelaySeconds = 0.05
maxDelaySeconds = 0.3
maxAttempts = 4
sendTimeoutSeconds = 5
"""


def webhook_config(reply_url: str, **extra: str) -> str:
    lines = [f'secret = "{HOOK_SECRET}"', f'replyUrl = "{reply_url}"', *(f"{k} = {v}" for k, v in extra.items())]
    return "[channels.webhook.hooks.ci]\n" + "\n".join(lines) + "\n"


def telegram_config(api: str, **extra: Any) -> str:
    lines = [f'botToken = "{BOT_TOKEN}"', f'apiBaseUrl = "{api}"', "pollTimeoutSeconds = 1"]
    lines += [f"{k} = {_toml(v)}" for k, v in extra.items()]
    return "[channels.telegram]\n" + "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


@dataclass
class Channels:
    gateway: Gateway
    server: GatewayServer
    manager: ChannelManager

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"

    def hook_url(self, name: str = "ci") -> str:
        return f"{self.http_url}/hooks/{name}"

    async def call(self, method: str, **params: Any) -> Any:
        return await self.gateway.call_method(method, params)

    def rows(self, table: str) -> list[dict[str, Any]]:
        with sqlite3.connect(self.gateway.paths.gateway_db) as conn:
            conn.row_factory = sqlite3.Row
            return [dict(r) for r in conn.execute(f"SELECT * FROM {table} ORDER BY rowid")]

    @property
    def service(self) -> ChannelService:
        return next(s for s in self.gateway.services if isinstance(s, ChannelService))

    async def settled(self, timeout: float = 60.0) -> None:
        """Wait for the channels to be at rest (`ChannelService.idle`): every stored message processed, every
        reply sent or given up, the processor and the delivery worker parked. Only then can a test say that
        nothing more happened. Whatever must be stored first (a redelivery) has to be waited for before."""
        await eventually(lambda: self.service.idle, timeout, "the channels to be idle")

    async def account_ended(self, channel: str, account: str = "default", timeout: float = 60.0) -> None:
        """Wait until the account's own task (its connection, kept up by `Reconnector`) has returned. An account
        that has ended can no longer retry, so what its peer has seen by then is all it will ever see: the proof
        of "stopped, no retry" that a fixed sleep (shorter than the backoff) is not."""
        adapter = self.manager.adapter(channel, account)
        assert adapter is not None, f"no {channel} account {account}"

        def ended() -> asyncio.Task[None] | None:
            task = adapter._task  # type: ignore[attr-defined]  # each adapter's one long-lived task
            return task if task is not None and task.done() else None

        task = await eventually(ended, timeout, f"the {channel} account to end")
        assert task.exception() is None  # it returned (stopped); it did not crash


Start = Callable[..., Awaitable[Channels]]


@pytest.fixture
def home(claw_env: ClawEnv) -> Path:
    ws = claw_env.home / "workspace"
    ws.mkdir(exist_ok=True)
    (ws / "SOUL.md").write_text("You are Testy.\n", encoding="utf-8")
    return claw_env.home


@pytest.fixture
def telegram() -> Iterator[FakeTelegram]:
    fake = FakeTelegram()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def receiver() -> Iterator[ReplyReceiver]:
    fake = ReplyReceiver()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
async def start_channels(home: Path) -> AsyncIterator[Start]:
    """`await start_channels(config_text)`: write config.toml, start a gateway with channels and the server."""
    started: list[Gateway] = []

    async def start(config: str = "") -> Channels:
        (home / "config.toml").write_text(FAST_OUTBOX + config, encoding="utf-8")
        paths = Paths.from_env()
        server = GatewayServer(ServerSettings(token=TOKEN, port=0, limiter=AuthLimiter(max_failures=50)))
        gateway = build_gateway(
            paths, load_config(paths), services=lambda gw: [*gw.capability(ChannelsCapability).services(), server]
        )
        await gateway.start()
        started.append(gateway)
        return Channels(gateway, server, gateway.capability(ChannelsCapability).manager)

    yield start
    for gateway in started:
        if not gateway.closing:
            await gateway.close()


async def eventually(predicate: Callable[[], Any], timeout: float = 60.0, what: str = "condition") -> Any:
    """Poll `predicate` (sync) until it is truthy, keeping the event loop running."""
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)
    return value
