"""The client API every transport implements: `GatewayClient` and the `RunHandle` that `run()` returns.

This module is deliberately light (no gateway, no config, no pydantic) so that a
client which talks to a running gateway over WebSocket starts fast.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol

from claw.vocab.run_event import RunEvent


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
    def from_wire(cls, payload: Any, *, agent_id: str = "main", session_key: str = "") -> RunHandle:
        """The `agent` method's first answer. claw's gateway answers `{status, agentId, sessionKey, runId |
        reply}`; OpenClaw's answers a slash command (`/new`, `/status`) with its one final result, no
        accepted ack: `{runId, status: "ok" | "error", summary, result: {payloads: [{text}]}}`, which is a
        reply here (no run to follow). Any other shape is shown as it came, never a crash; `agent_id` and
        `session_key` (what was asked for) stand in for what the answer leaves out."""
        if not isinstance(payload, dict) or not isinstance(payload.get("status"), str):
            return cls("unexpected", agent_id, session_key, reply=_shown(payload), error="unexpected")
        agent = value if isinstance(value := payload.get("agentId"), str) else agent_id
        key = value if isinstance(value := payload.get("sessionKey"), str) else session_key
        status = payload["status"]
        if status in ("ok", "error", "timeout") and ("result" in payload or "summary" in payload):
            result = value if isinstance(value := payload.get("result"), dict) else {}
            payloads = value if isinstance(value := result.get("payloads"), list) else []
            texts = [p["text"] for p in payloads if isinstance(p, dict) and isinstance(p.get("text"), str)]
            said = "\n".join(texts) or str(payload.get("summary") or payload.get("error") or status)
            return cls("command", agent, key, reply=said, error=None if status == "ok" else status)
        run_id = value if isinstance(value := payload.get("runId"), str) else None
        reply = value if isinstance(value := payload.get("reply"), str) else None
        error = value if isinstance(value := payload.get("error"), str) else None
        if run_id is None and reply is None:
            return cls("unexpected", agent, key, reply=_shown(payload), error="unexpected")
        return cls(status, agent, key, run_id, reply, error)


def _shown(payload: Any) -> str:
    """An answer the client did not expect, as it came (cut short)."""
    text = json.dumps(payload, ensure_ascii=False, default=repr)
    return f"the gateway answered: {text if len(text) <= 500 else text[:500] + '…'}"


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
