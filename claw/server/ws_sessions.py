"""`SessionFeed`: a connection's session subscription — OpenClaw's `sessions.messages.subscribe` and
`sessions.messages.unsubscribe` (the live event stream of one session).

    → {"type": "req", "id": "7", "method": "sessions.messages.subscribe",
       "params": {"key": "agent:main:main", "others": false}}
    ← {"type": "res", "id": "7", "ok": true,
       "payload": {"key": "agent:main:main", "subscribed": "agent:main:main", "others": false}}
    ← {"type": "event", "event": "agent", "payload": {RunEvent}, "seq": …}   … for every run of the session

`key` is a full key, or a short one (`main`) under `agentId` (default `main`), as OpenClaw's clients send
it; the reply's `key` is the full one, which openclaw-node then also matches events on. `sessionKey` is
accepted for `key`, and `others` is claw's own addition.

Every event of every run in the session, whoever started it (another client, a channel message, an
automation), goes out as the same `agent` frame a followed run's events use — runs under way replayed
from their first event — and, with `others`, the accepted and terminal events of every other session's
runs. One subscription per connection: subscribing again replaces it. These are methods of the connection,
not of the gateway (a subscription lives as long as its socket), so `Gateway.methods` does not list them;
the hello does (`CONNECTION_METHODS`). Each event reaches the connection once even when it also follows
the run (`WsConnection.send_agent`). A subscriber that falls behind is disconnected like a slow follower.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from claw.errors import UsageError
from claw.gateway.run_follow import session_events
from claw.protocol.version import SUBSCRIBE, UNSUBSCRIBE
from claw.vocab.run_event import RunEvent
from claw.vocab.subscription import SubscriberOverflow

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway

log = logging.getLogger(__name__)


class SessionFeed:
    """The one session subscription of a connection: `send` each event; `overflowed` when it fell behind."""

    def __init__(
        self,
        gateway: Gateway,
        send: Callable[[RunEvent], Awaitable[bool]],
        overflowed: Callable[[], Awaitable[None]],
    ) -> None:
        self._gateway = gateway
        self._send = send
        self._overflowed = overflowed
        self._task: asyncio.Task[None] | None = None

    async def call(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """Serve `sessions.messages.subscribe` or `…unsubscribe`; `UsageError` for bad params."""
        if method == UNSUBSCRIBE:
            await self.stop()
            return {"subscribed": None}
        key, others = params.get("key", params.get("sessionKey")), params.get("others", False)
        unknown = set(params) - {"key", "sessionKey", "agentId", "others", "includeApprovals"}
        if unknown:
            raise UsageError(f"invalid parameters for {SUBSCRIBE}: unknown field {sorted(unknown)[0]}")
        agent_id = params.get("agentId") or "main"
        if isinstance(key, str) and key and not key.startswith("agent:") and isinstance(agent_id, str):
            key = f"agent:{agent_id}:{key}"
        if not isinstance(key, str) or not key.startswith("agent:") or key.count(":") < 2:
            raise UsageError(f"invalid parameters for {SUBSCRIBE}: key: a session key such as agent:main:main")
        if not isinstance(others, bool):
            raise UsageError(f"invalid parameters for {SUBSCRIBE}: others: a boolean")
        await self.stop()
        # The bus subscription is taken when the pump first runs, a moment after this answer; a run
        # accepted meanwhile is not missed: the subscription replays the session's runs under way.
        events = cast(AsyncGenerator[RunEvent, None], session_events(self._gateway, key, others=others))
        self._task = asyncio.ensure_future(self._pump(events))
        return {"key": key, "subscribed": key, "others": others}

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _pump(self, events: AsyncGenerator[RunEvent, None]) -> None:
        try:
            async with contextlib.aclosing(events):
                async for event in events:
                    if not await self._send(event):
                        return
        except SubscriberOverflow:
            log.warning("a session subscriber fell behind; closing its connection")
            await self._overflowed()
