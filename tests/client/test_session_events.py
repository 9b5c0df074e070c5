"""`session_events`: a client follows a whole session — every run in it, whoever started it — in-process and
over the WebSocket protocol alike; with `others`, the outline of other sessions' runs too."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest

from claw.client.local import LocalClient
from claw.client.remote import RemoteClient
from claw.compose import build_gateway
from claw.config import load_config
from claw.gateway.gateway import Gateway
from claw.paths import Paths
from claw.server.server import GatewayServer
from claw.server.settings import ServerSettings
from claw.vocab.run_event import RunEvent
from tests.support.model_server import text

TOKEN = "session-events-token-1"
MAIN = "agent:main:main"


@contextlib.asynccontextmanager
async def _clients(kind: str) -> AsyncIterator[tuple[Any, Any, Gateway]]:
    """(watcher, sender, gateway): two clients of one gateway, both in-process or both over WebSocket."""
    paths = Paths.from_env()
    if kind == "local":
        gateway = build_gateway(paths, load_config(paths))
        await gateway.start()
        try:
            yield LocalClient(gateway, owns_gateway=False), LocalClient(gateway, owns_gateway=False), gateway
        finally:
            await gateway.close()
        return
    server = GatewayServer(ServerSettings(token=TOKEN, port=0))
    gateway = build_gateway(paths, load_config(paths), services=[server])
    await gateway.start()
    watcher = await RemoteClient.connect(server.url, TOKEN)
    sender = await RemoteClient.connect(server.url, TOKEN)
    try:
        assert "sessions.messages.subscribe" in watcher.hello["features"]["methods"]
        yield watcher, sender, gateway
    finally:
        await watcher.close()
        await sender.close()
        await gateway.close()


class _Collector:
    """Reads a subscription in the background; `until(cond)` waits for the events to satisfy `cond`."""

    def __init__(self, events: AsyncIterator[RunEvent]) -> None:
        self.events: list[RunEvent] = []
        self._changed = asyncio.Event()
        self._task = asyncio.ensure_future(self._read(events))

    async def _read(self, events: AsyncIterator[RunEvent]) -> None:
        async for event in events:
            self.events.append(event)
            self._changed.set()

    async def until(self, cond: Any, what: str) -> None:
        async with asyncio.timeout(15):
            while not cond(self.events):
                if self._task.done():
                    self._task.result()
                    raise AssertionError(f"the subscription ended before {what}: {self.events}")
                self._changed.clear()
                await self._changed.wait()

    async def stop(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


def _terminal(run_id: str | None) -> Any:
    return lambda events: any(e.run_id == run_id and e.is_terminal for e in events)


@pytest.mark.parametrize("kind", ["local", "remote"])
async def test_a_turn_from_another_client_reaches_the_session_subscriber(claw_env, kind: str) -> None:
    claw_env.server.script(text("Reply to the other client."), text("Elsewhere."), text("My own."))
    async with _clients(kind) as (watcher, sender, gateway):
        before = gateway.bus.subscriber_count
        seen = _Collector(watcher.session_events(MAIN, others=True))
        async with asyncio.timeout(10):  # subscribed (in this process, or the server's for its connection)
            while gateway.bus.subscriber_count == before:
                await asyncio.sleep(0.01)
        handle = await sender.run("from another terminal", session_key=MAIN)
        await seen.until(_terminal(handle.run_id), "the other client's turn ended")
        run = [e for e in seen.events if e.run_id == handle.run_id]
        accepted = run[0].data
        assert accepted["phase"] == "accepted" and accepted["message"] == "from another terminal"
        assert "".join(e.data.get("delta", "") for e in run) == "Reply to the other client."
        assert run[-1].data["phase"] == "end" and [e.seq for e in run] == sorted({e.seq for e in run})

        other = await sender.run("in another session", session_key="agent:main:elsewhere")
        await seen.until(_terminal(other.run_id), "the other session's turn ended")
        phases = [e.data.get("phase") for e in seen.events if e.run_id == other.run_id]
        assert phases == ["accepted", "end"]  # only the outline of another session's run

        own = await watcher.run("my own turn", session_key=MAIN)
        followed = [e async for e in watcher.events(own.run_id)]  # followed as a run, and seen in the session
        await seen.until(_terminal(own.run_id), "the watcher's own turn ended")
        mine = [(e.run_id, e.seq) for e in seen.events if e.run_id == own.run_id]
        assert mine == [(e.run_id, e.seq) for e in followed]  # each event once, in order
        await seen.stop()


async def test_subscribing_with_a_bad_session_key_is_a_usage_error(claw_env) -> None:
    from claw.errors import UsageError

    async with _clients("remote") as (watcher, _sender, _gateway):
        with pytest.raises(UsageError, match="key: a session key"):
            async for _event in watcher.session_events("agent:"):
                break
