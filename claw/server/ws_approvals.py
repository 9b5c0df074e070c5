"""Exec approvals over the wire: the broker's approver while the network server runs.

A question goes to every connected client that opted in (`caps: ["approvals"]` in
`connect`) as an `exec.approval.requested` event; any of them answers with the
`exec.approval.resolve` method (which resolves the broker's pending question by id).
With no such client connected, or when the last one leaves, or after
`timeout_s`, the relay answers None and the broker's fallback applies.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import TYPE_CHECKING, Any

from claw.gateway.approval_rows import approval_row
from claw.tools.base import ApprovalRequest, Decision

if TYPE_CHECKING:
    from claw.server.ws_connection import WsConnection


def request_payload(request: ApprovalRequest, asked_at: float, expires_at: float) -> dict[str, Any]:
    """The `exec.approval.requested` payload in OpenClaw's shape: `{approvalKind, id, request: {command, cwd,
    agentId, sessionKey, reason, tool}, createdAtMs, expiresAtMs}`, the same row `exec.approval.list` answers."""
    return {**approval_row(request, expires_at_ms=int(expires_at * 1000)), "createdAtMs": int(asked_at * 1000)}


class ApprovalRelay:
    """Callable as an `Approver`; knows which connections can approve."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._approvers: set[WsConnection] = set()
        self._none_left = asyncio.Event()
        self._none_left.set()

    def add(self, conn: WsConnection) -> None:
        self._approvers.add(conn)
        self._none_left.clear()

    def discard(self, conn: WsConnection) -> None:
        self._approvers.discard(conn)
        if not self._approvers:
            self._none_left.set()

    async def __call__(self, request: ApprovalRequest) -> Decision | None:
        if not self._approvers:
            return None
        now = time.time()
        payload = request_payload(request, now, now + self.timeout_s)
        for conn in list(self._approvers):
            conn.post_event("exec.approval.requested", payload)
        outcome = "fallback"
        try:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.timeout_s):
                    await self._none_left.wait()
            return None
        except asyncio.CancelledError:  # a client resolved it (or the run was aborted)
            outcome = "answered"
            raise
        finally:
            for conn in list(self._approvers):
                conn.post_event("exec.approval.resolved", {"id": request.id, "outcome": outcome})
