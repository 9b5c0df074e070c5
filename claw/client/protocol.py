"""The client API every transport implements: `GatewayClient` and the `RunHandle` that `run()` returns.

This module is deliberately light (no gateway, no config, no pydantic) so that a
client which talks to a running gateway over WebSocket starts fast.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol

from claw.gateway.run_event import RunEvent


@dataclass(frozen=True, slots=True)
class RunHandle:
    """What `run()` returns: a run id to follow, or a command's reply (no run)."""

    status: str
    agent_id: str
    session_key: str
    run_id: str | None = None
    reply: str | None = None
    error: str | None = None
    """Set when `reply` is a command's error (`unknown-command`, `usage`, `failed`), not its answer."""

    @classmethod
    def from_wire(cls, payload: dict[str, Any]) -> RunHandle:
        return cls(
            payload["status"],
            payload["agentId"],
            payload["sessionKey"],
            payload.get("runId"),
            payload.get("reply"),
            payload.get("error"),
        )


class GatewayClient(Protocol):
    """One client API, two transports: `LocalClient` (in-process) and `RemoteClient` (WebSocket)."""

    async def call(self, method: str, **params: Any) -> Any: ...

    async def run(
        self,
        message: str,
        *,
        agent_id: str = "main",
        session_key: str | None = None,
        idempotency_key: str | None = None,
        model: str | None = None,
    ) -> RunHandle: ...

    def events(self, run_id: str) -> AsyncIterator[RunEvent]: ...

    def session_events(self, session_key: str, *, others: bool = False) -> AsyncIterator[RunEvent]:
        """Every event of every run in `session_key` (a full key, `agent:<id>:…`), whoever started it, from
        now on (runs under way replayed from their first event), until the caller stops iterating; with
        `others`, also the accepted and terminal events of every other session's runs. One at a time per
        client: a new one ends the one before. Raises `SubscriberOverflow` (in-process) or
        `GatewayUnavailable` (remote) when the subscriber fell too far behind or the connection went."""
        ...

    @property
    def where(self) -> str:
        """Where the gateway runs, for a person: `in-process`, or the URL it is attached to."""
        ...

    async def close(self) -> None: ...
