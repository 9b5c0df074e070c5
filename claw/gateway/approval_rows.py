"""An exec question as OpenClaw's protocol shows it — `{id, approvalKind, request: {command, cwd, agentId,
sessionKey, …}}` — for `exec.approval.list`, and for the `exec.approval.requested` event, whose payload
OpenClaw's clients read the same way (`payload.request.sessionKey`)."""

from __future__ import annotations

from typing import Any

from claw.tools.base import ApprovalRequest


def approval_row(request: ApprovalRequest, *, expires_at_ms: int | None = None) -> dict[str, Any]:
    """`request` in OpenClaw's shape; `expiresAtMs` when the asker knows when the question lapses."""
    row: dict[str, Any] = {
        "id": request.id,
        "approvalKind": "exec",
        "request": {
            "command": request.command,
            "cwd": request.cwd,
            "agentId": request.agent_id,
            "sessionKey": request.session_key,
            "reason": request.reason,
            "tool": request.tool,
        },
    }
    if expires_at_ms is not None:
        row["expiresAtMs"] = expires_at_ms
    return row
