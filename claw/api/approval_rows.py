"""An exec question as OpenClaw's protocol shows it.

`approval_row` is the exec shape — `{id, approvalKind, request: {command, cwd, agentId, sessionKey, …}}` — for
`exec.approval.list` and the `exec.approval.requested` event, whose payload OpenClaw's clients read the same way
(`payload.request.sessionKey`).

`plugin_approval_row` is the same question in the shape of OpenClaw's plugin approvals — `{id, request: {title,
description, severity, toolName, allowedDecisions, agentId, sessionKey}, createdAtMs, expiresAtMs}` — for
clients that answer only those: OpenClaw's TUI shows a plugin approval as a prompt with "Allow once / Always
allow / Deny", and has no prompt for exec approvals. claw has no plugins; this is how its exec questions reach
such a client, named for what they are (`toolName` is the asking tool, the title says what would run).
"""

from __future__ import annotations

from typing import Any

from claw.tools.base import ApprovalRequest

TITLE_MAX = 80
DESCRIPTION_MAX = 512
"""OpenClaw's limits on a plugin approval's title and description (longer ones are refused there)."""
DECISIONS_OFFERED = ("allow-once", "allow-always", "deny")


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
            "allowAlways": request.allow_always,
        },
    }
    if expires_at_ms is not None:
        row["expiresAtMs"] = expires_at_ms
    return row


def plugin_approval_row(request: ApprovalRequest, *, created_at_ms: int, expires_at_ms: int) -> dict[str, Any]:
    """`request` as an OpenClaw plugin approval: the command in the title, where and why in the description."""
    verb = "Run" if request.tool == "exec" else f"Call {request.tool}:"
    return {
        "id": request.id,
        "request": {
            "title": _clip(f"{verb} {_one_line(request.command)}", TITLE_MAX),
            "description": _clip(
                f"{request.command}  (in {request.cwd}; asked because {request.reason})", DESCRIPTION_MAX
            ),
            "severity": "warning",
            "toolName": request.tool,
            "allowedDecisions": list(DECISIONS_OFFERED),
            "agentId": request.agent_id,
            "sessionKey": request.session_key,
        },
        "createdAtMs": created_at_ms,
        "expiresAtMs": expires_at_ms,
    }


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
