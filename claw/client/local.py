"""One client API, two transports: `LocalClient` wraps an in-process `Gateway`;
a remote client speaks the same method names over WebSocket.

`GatewayClient` and `RunHandle` live in `claw.client.protocol` (light to import) and are re-exported here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from claw.client.protocol import GatewayClient, RunHandle
from claw.gateway.event_bus import Subscription
from claw.gateway.gateway import DispatchResult, Gateway
from claw.gateway.run_follow import run_events, session_events
from claw.vocab.msg_context import MsgContext
from claw.vocab.run_event import RunEvent

__all__ = ["GatewayClient", "LocalClient", "RunHandle"]


class LocalClient:
    """The in-process transport: direct calls on a `Gateway` this client owns (or borrows)."""

    def __init__(self, gateway: Gateway, *, channel: str = "cli", owns_gateway: bool = True) -> None:
        self.gateway = gateway
        self._channel = channel
        self._owns = owns_gateway
        self._session_feed: Subscription | None = None

    async def call(self, method: str, **params: Any) -> Any:
        return await self.gateway.call_method(method, params, channel=self._channel)

    async def run(
        self,
        message: str,
        *,
        agent_id: str = "main",
        session_key: str | None = None,
        idempotency_key: str | None = None,
        model: str | None = None,
    ) -> RunHandle:
        ctx = MsgContext(  # the in-process client is the operator: commands and owner-only tools allowed
            body=message, channel=self._channel, agent_id=agent_id, session_key=session_key, command_authorized=True
        )
        result: DispatchResult = await self.gateway.dispatch(ctx, idempotency_key=idempotency_key, model=model)
        return RunHandle(result.status, result.agent_id, result.session_key, result.run_id, result.reply, result.error)

    def events(self, run_id: str) -> AsyncIterator[RunEvent]:
        """The run's events in seq order, from the first (replayed) to the terminal one."""
        return run_events(self.gateway, run_id)

    async def session_events(self, session_key: str, *, others: bool = False) -> AsyncIterator[RunEvent]:
        """Every event of every run in `session_key` from now on; see `GatewayClient.session_events`."""
        if self._session_feed is not None:
            self._session_feed.close()  # one at a time: the one before ends (its iterator stops)
        sub = self._session_feed = self.gateway.bus.subscribe_session(session_key, others=others)
        async for event in session_events(self.gateway, session_key, sub=sub):
            yield event

    @property
    def where(self) -> str:
        return "in-process"

    async def close(self) -> None:
        if self._owns:
            await self.gateway.close()
