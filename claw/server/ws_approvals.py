"""Exec approvals over the wire: the broker's approver while the network server runs.

A question goes to every connected client that answers questions and was granted `operator.approvals`,
in the shape that client reads:

- claw's own clients (`caps: ["approvals"]` in `connect`) get `exec.approval.requested` and answer with
  the `exec.approval.resolve` method (which resolves the broker's pending question by id);
- OpenClaw's TUI, which declares `plugin-approvals` and prompts only for plugin approvals, gets the same
  question as `plugin.approval.requested` (claw/api/approval_rows.py: `plugin_approval_row`) and
  answers with `plugin.approval.resolve`; `plugin.approval.list` gives it the questions open now, as it
  asks when it (re)connects. The network server serves these two (`methods`) beside the gateway's,
  because the questions' deadlines are this relay's.

With no such client connected, or when the last one leaves, or after `timeout_s`, the relay answers None
and the broker's fallback applies. Either way every such client is told the question closed
(`exec.approval.resolved` / `plugin.approval.resolved`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from claw.api.approval_rows import approval_row, plugin_approval_row
from claw.api.approvals import ApprovalAnswerParams
from claw.api.method import RpcMethod, table
from claw.api.params import NoParams, takes
from claw.errors import NotFoundError, UsageError
from claw.protocol.scopes import APPROVALS, satisfied
from claw.tools.base import ApprovalRequest, Decision
from claw.tools.exec_approvals import DECISIONS

if TYPE_CHECKING:
    from claw.server.ws_connection import WsConnection
    from claw.tools.exec_approvals import ApprovalBroker

EXEC_CAP = "approvals"
PLUGIN_CAP = "plugin-approvals"
PLUGIN_LIST, PLUGIN_RESOLVE = "plugin.approval.list", "plugin.approval.resolve"


def request_payload(request: ApprovalRequest, asked_at: float, expires_at: float) -> dict[str, Any]:
    """The `exec.approval.requested` payload in OpenClaw's shape: `{approvalKind, id, request: {command, cwd,
    agentId, sessionKey, reason, tool}, createdAtMs, expiresAtMs}`, the same row `exec.approval.list` answers."""
    return {**approval_row(request, expires_at_ms=int(expires_at * 1000)), "createdAtMs": int(asked_at * 1000)}


@dataclass(frozen=True, slots=True)
class _Open:
    request: ApprovalRequest
    asked_at: float
    expires_at: float

    def plugin_row(self) -> dict[str, Any]:
        return plugin_approval_row(
            self.request, created_at_ms=int(self.asked_at * 1000), expires_at_ms=int(self.expires_at * 1000)
        )


class ApprovalRelay:
    """Callable as an `Approver`; knows which connections can approve, and in which shape."""

    def __init__(self, timeout_s: float) -> None:
        self.timeout_s = timeout_s
        self._exec: set[WsConnection] = set()
        self._plugin: set[WsConnection] = set()
        self._open: dict[str, _Open] = {}
        self._none_left = asyncio.Event()
        self._none_left.set()

    def add(self, conn: WsConnection) -> None:
        """Count `conn` as an approver if it asked to answer questions and may."""
        caps = conn.info.caps
        if not satisfied(APPROVALS, conn.info.scopes):
            return
        if EXEC_CAP in caps:
            self._exec.add(conn)
        elif PLUGIN_CAP in caps:
            self._plugin.add(conn)
        else:
            return
        self._none_left.clear()

    def discard(self, conn: WsConnection) -> None:
        self._exec.discard(conn)
        self._plugin.discard(conn)
        if not self._exec and not self._plugin:
            self._none_left.set()

    async def __call__(self, request: ApprovalRequest) -> Decision | None:
        if not self._exec and not self._plugin:
            return None
        now = time.time()
        question = _Open(request, now, now + self.timeout_s)
        self._open[request.id] = question
        exec_payload = request_payload(request, question.asked_at, question.expires_at)
        for conn in list(self._exec):
            conn.post_event("exec.approval.requested", exec_payload)
        plugin_payload = question.plugin_row()
        for conn in list(self._plugin):
            conn.post_event("plugin.approval.requested", plugin_payload)
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
            self._open.pop(request.id, None)
            closed = {"id": request.id, "outcome": outcome, "ts": int(time.time() * 1000)}
            for conn in list(self._exec):
                conn.post_event("exec.approval.resolved", closed)
            for conn in list(self._plugin):
                conn.post_event("plugin.approval.resolved", closed)

    def methods(self, broker: ApprovalBroker) -> dict[str, RpcMethod]:
        """`plugin.approval.list` (the questions open now) and `plugin.approval.resolve {id, decision}`,
        served by the network server beside the gateway's methods."""

        @takes(NoParams)
        async def listed(params: NoParams) -> list[dict[str, Any]]:
            return [question.plugin_row() for question in self._open.values()]

        @takes(ApprovalAnswerParams)
        async def resolve(params: ApprovalAnswerParams) -> dict[str, Any]:
            request_id, decision = params.id, params.decision
            if decision not in DECISIONS:
                raise UsageError(f"invalid decision {decision!r}; expected one of {', '.join(sorted(DECISIONS))}")
            if request_id not in self._open or not broker.resolve(request_id, decision):  # type: ignore[arg-type]
                raise NotFoundError(f"approval expired or not found: {request_id}")
            return {"ok": True, "id": request_id, "decision": decision}

        return table(RpcMethod(PLUGIN_LIST, APPROVALS, listed), RpcMethod(PLUGIN_RESOLVE, APPROVALS, resolve))
