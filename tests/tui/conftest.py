"""The console under `App.run_test()`, on a real in-process gateway talking to the scripted model server."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from claw.client.local import LocalClient
from claw.compose import build_gateway
from claw.config import load_config
from claw.gateway.gateway import Gateway
from claw.paths import Paths
from claw.tui.app import ClawApp, make_app
from claw.tui.approvals import BrokerApprovals
from tests.support.fixtures import ClawEnv

SIZE = (120, 40)


@dataclass
class Console:
    """What `console()` built: the app, and the gateway and client behind it."""

    app: ClawApp
    gateway: Gateway
    client: LocalClient


@pytest.fixture
def workspace(claw_env: ClawEnv) -> Path:
    ws = claw_env.home / "workspace"
    ws.mkdir(exist_ok=True)
    (ws / "SOUL.md").write_text("You are Testy, a careful assistant.\n", encoding="utf-8")
    return ws


@pytest.fixture
async def console(claw_env: ClawEnv, workspace: Path) -> AsyncIterator[Callable[..., Console]]:
    """`console(session_key=…, model=…)` builds the app on a fresh gateway (after the test wrote its config)."""
    built: list[Console] = []

    def factory(**options: Any) -> Console:
        paths = Paths.from_env()
        gateway = build_gateway(paths, load_config(paths), services=Gateway.capability_services)
        client = LocalClient(gateway, channel="tui")
        app = make_app(client, approvals=BrokerApprovals(gateway.approvals), **options)
        built.append(Console(app, gateway, client))
        return built[-1]

    yield factory
    for item in built:
        await item.client.close()


async def wait_for(pilot: Pilot[Any], condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
    """Let the app run until `condition()` is truthy; its value. Fails with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what or condition}")
        await pilot.pause(0.05)


async def type_and_send(pilot: Pilot[Any], text: str) -> None:
    """Put `text` in the prompt and press Enter."""
    prompt = pilot.app.screen.query_one("#prompt")
    prompt.set_text(text)  # type: ignore[attr-defined]
    await pilot.press("enter")


def user_texts(app: ClawApp) -> list[str]:
    """The user messages shown in the conversation, in order."""
    from claw.tui.widgets.conversation.user_message import UserMessage

    return [m.text for m in app.chat.conversation.query(UserMessage)]


async def say(pilot: Pilot[Any], app: ClawApp, server: Any, message: str) -> None:
    """Send `message` from the prompt and wait until the model got it and the run is over."""
    sent = len(server.chat_requests)
    await type_and_send(pilot, message)
    await wait_for(pilot, lambda: len(server.chat_requests) == sent + 1 and not app.chat.runs, what=message)


async def session_rows(app: ClawApp) -> dict[str, dict[str, Any]]:
    """`sessions.list` through the console's client, by session key (without `snapshotAt`, the time the
    row was read: two reads of an untouched session compare equal)."""
    rows = (await app.client.call("sessions.list"))["sessions"]
    return {row["key"]: {k: v for k, v in row.items() if k != "snapshotAt"} for row in rows}


def first(node: Any, kind: Any) -> Any:
    """The first `kind` widget under `node`, or None (for `wait_for`)."""
    found = node.query(kind)
    return found.first() if found else None


def screen_text(app: ClawApp) -> str:
    """Everything visible on the screen, as plain text."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


TOKEN = "tui-test-token-5d1e"


@pytest.fixture
async def remote_console(claw_env: ClawEnv, workspace: Path) -> AsyncIterator[Callable[..., Any]]:
    """`await remote_console()`: a gateway serving WebSocket on 127.0.0.1:<ephemeral>, and the console on a
    `RemoteClient` connected to it (with remote approvals), as `claw chat --url` builds it."""
    from claw.client.remote import RemoteClient
    from claw.server.server import GatewayServer
    from claw.server.settings import ServerSettings
    from claw.tui.approvals import RemoteApprovals

    gateways: list[Gateway] = []
    clients: list[Any] = []

    async def factory(**options: Any) -> Console:
        paths = Paths.from_env()
        server = GatewayServer(ServerSettings(token=TOKEN, port=0))
        gateway = build_gateway(paths, load_config(paths), services=[server])
        await gateway.start()
        gateways.append(gateway)
        approvals = RemoteApprovals()
        client = await RemoteClient.connect(server.url, TOKEN, approver=approvals, channel="tui")
        clients.append(client)
        return Console(make_app(client, approvals=approvals, **options), gateway, client)

    yield factory
    for client in clients:
        await client.close()
    for gateway in gateways:
        await gateway.close()
