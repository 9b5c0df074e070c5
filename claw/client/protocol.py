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

    async def close(self) -> None: ...
