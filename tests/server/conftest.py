"""A real gateway with its network server on 127.0.0.1:<ephemeral>, and raw WebSocket helpers.

`served` starts `build_gateway(paths, config, services=[GatewayServer(...)])` on a temporary
CLAW_HOME, against the scripted model server; `wire()` opens a raw `websockets`
connection that speaks frames (for protocol tests); `any_client` is the same client API
over both transports (LocalClient and RemoteClient) for client-level tests.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect

from claw.client.local import LocalClient
from claw.client.protocol import GatewayClient
from claw.client.remote import RemoteClient
from claw.compose import build_gateway
from claw.config import load_config
from claw.gateway.gateway import Gateway
from claw.paths import Paths
from claw.server.auth import AuthLimiter
from claw.server.server import GatewayServer
from claw.server.settings import ServerSettings
from tests.support.fixtures import ClawEnv

TOKEN = "tok-3f9b1c7e2d8a4b6c"


def write_config(home: Path, text: str) -> None:
    (home / "config.toml").write_text(text, encoding="utf-8")


@dataclass
class Served:
    """A running gateway and where to reach it."""

    gateway: Gateway
    server: GatewayServer

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def http_url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}"


MakeServed = Callable[..., Awaitable[Served]]


@pytest.fixture
def home(claw_env: ClawEnv) -> Path:
    ws = claw_env.home / "workspace"
    ws.mkdir(exist_ok=True)
    (ws / "SOUL.md").write_text("You are Testy.\n", encoding="utf-8")
    return claw_env.home


@pytest.fixture
async def make_served(home: Path) -> AsyncIterator[MakeServed]:
    """Start a gateway + server with `ServerSettings` overrides (after the test wrote any config)."""
    started: list[Gateway] = []

    async def factory(**overrides: Any) -> Served:
        paths = Paths.from_env()
        options: dict[str, Any] = {"token": TOKEN, "port": 0, "limiter": AuthLimiter(max_failures=5), **overrides}
        server = GatewayServer(ServerSettings(**options))
        gateway = build_gateway(paths, load_config(paths), services=[server])
        await gateway.start()
        started.append(gateway)
        return Served(gateway, server)

    yield factory
    for gateway in started:
        await gateway.close()


@pytest.fixture
async def served(make_served: MakeServed) -> Served:
    return await make_served()


@dataclass
class Wire:
    """A raw WebSocket connection that sends frames and sorts what comes back."""

    ws: ClientConnection
    events: list[dict[str, Any]] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)
    challenge: dict[str, Any] = field(default_factory=dict)
    quiet: tuple[str, ...] = ("presence", "health")
    """Status events kept in `events` but not returned by `recv`: they come whenever a client comes or goes."""
    _ids: int = 0

    async def send(self, frame: dict[str, Any] | str | bytes) -> None:
        await self.ws.send(frame if isinstance(frame, str | bytes) else json.dumps(frame))

    async def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        async with asyncio.timeout(timeout):
            while True:
                frame = json.loads(await self.ws.recv())
                (self.events if frame["type"] == "event" else self.responses).append(frame)
                if frame["type"] != "event" or frame["event"] not in self.quiet:
                    return frame

    async def res(self, frame_id: str | None, timeout: float = 30.0) -> dict[str, Any]:
        """The next `res` with `frame_id` (events and other responses arriving first are kept)."""
        while True:
            frame = await self.recv(timeout)
            if frame["type"] == "res" and frame["id"] == frame_id:
                return frame

    async def request(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        self._ids += 1
        frame_id = f"r{self._ids}"
        await self.send({"type": "req", "id": frame_id, "method": method, "params": params or {}})
        return await self.res(frame_id, **kw)

    async def call(self, method: str, **params: Any) -> Any:
        reply = await self.request(method, params)
        assert reply["ok"], reply
        return reply["payload"]

    async def close(self) -> None:
        await self.ws.close()


def connect_frame(token: str | None = TOKEN, **extra: Any) -> dict[str, Any]:
    """A protocol 4 `connect`, as OpenClaw's clients send it (no device: these come over loopback)."""
    params: dict[str, Any] = {
        "minProtocol": 4,
        "maxProtocol": 4,
        "client": {"id": "test", "version": "1", "platform": "linux", "mode": "test"},
        "role": "operator",
        "scopes": ["operator.admin"],
        "caps": [],
        "auth": {"token": token},
        **extra,
    }
    return {"type": "req", "id": "c1", "method": "connect", "params": params}


async def open_wire(url: str, *, token: str | None = TOKEN, handshake: bool = True, **connect_kw: Any) -> Wire:
    """A raw connection that has read the server's `connect.challenge` (kept as `wire.challenge`); with
    `handshake` it has also sent `connect` and checked the hello."""
    wire = Wire(await connect(url, max_size=None, open_timeout=10, **connect_kw))
    first = await wire.recv()
    assert first["event"] == "connect.challenge", first
    wire.challenge = wire.events.pop()["payload"]
    if handshake:
        await wire.send(connect_frame(token))
        hello = await wire.res("c1")
        assert hello["ok"], hello
    return wire


@pytest.fixture(params=["local", "remote"])
async def any_client(request: pytest.FixtureRequest, served: Served) -> AsyncIterator[GatewayClient]:
    """The same client API over both transports."""
    if request.param == "local":
        yield LocalClient(served.gateway, owns_gateway=False)
        return
    client = await RemoteClient.connect(served.url, TOKEN)
    yield client
    await client.close()


def scrubbed_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAW_", "OPENAI_"))}
    return {**env, "CLAW_HOME": str(home), **extra}
