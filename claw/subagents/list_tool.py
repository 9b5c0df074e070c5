"""The `sessions_list` tool: the sessions this agent may see, most recently active first."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from claw.store.sessions import SessionEntry
from claw.subagents.policy import PARENT_KEY
from claw.subagents.record import SUBAGENT_KEY
from claw.subagents.session_access import KINDS, kind_of, reachable
from claw.tools.args import ToolArgumentError, int_arg, number_arg
from claw.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from claw.subagents.host import SubagentsHost

DEFAULT_LIMIT = 20
MAX_LIMIT = 100


class ListTool:
    name = "sessions_list"
    description = (
        "List conversations (sessions) you can see, most recently active first: key, kind, channel, "
        "message count, last message, and for subagents who spawned them and their status. Filter with "
        f"`kinds` (any of {', '.join(KINDS)}), `activeMinutes` (updated within) and `limit` "
        f"(default {DEFAULT_LIMIT}, at most {MAX_LIMIT}). Read one with sessions_history."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "kinds": {"type": "array", "items": {"type": "string", "enum": list(KINDS)}},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
            "activeMinutes": {"type": "number", "description": "Only sessions updated in the last N minutes."},
        },
        "additionalProperties": False,
    }

    def __init__(self, host: SubagentsHost) -> None:
        self._host = host

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        kinds = _kinds(args.get("kinds"), self.name)
        limit = min(MAX_LIMIT, int_arg(args, "limit", tool=self.name) or DEFAULT_LIMIT)
        minutes = number_arg(args, "activeMinutes", tool=self.name)
        since = (datetime.now(UTC) - timedelta(minutes=minutes)).isoformat() if minutes else None
        entries = await asyncio.to_thread(self._entries, ctx)
        rows = []
        for entry in entries:
            if kinds and kind_of(entry.session_key) not in kinds:
                continue
            if since and _utc(entry.updated_at) < since:
                continue
            if reachable(self._host, ctx, entry):
                continue
            rows.append(self._row(entry))
            if len(rows) >= limit:
                break
        return ToolResult(json.dumps({"count": len(rows), "sessions": rows}, ensure_ascii=False))

    def _entries(self, ctx: ToolContext) -> list[SessionEntry]:
        allowed = ctx.settings.tools.sessions.allow_agents
        agents = [a for a in self._host.config.agent_ids if a == ctx.agent_id or "*" in allowed or a in allowed]
        found = [e for agent in agents for e in self._host.sessions(agent).list()]
        return sorted(found, key=lambda e: _utc(e.updated_at), reverse=True)

    def _row(self, entry: SessionEntry) -> dict[str, Any]:
        row: dict[str, Any] = {
            "sessionKey": entry.session_key,
            "kind": kind_of(entry.session_key),
            "channel": entry.channel,
            "updatedAt": entry.updated_at,
            "messages": entry.message_count,
            "lastMessage": entry.last_preview,
            "running": bool(self._host.active_runs(entry.session_key)),
        }
        if isinstance(entry.extra.get(PARENT_KEY), str):
            row["spawnedBy"] = entry.extra[PARENT_KEY]
        child = entry.extra.get(SUBAGENT_KEY)
        if isinstance(child, dict):
            row["subagent"] = {k: child.get(k) for k in ("label", "status", "runId")}
        return row


def _kinds(value: Any, tool: str) -> set[str]:
    if value is None:
        return set()
    if not isinstance(value, list) or any(v not in KINDS for v in value):
        raise ToolArgumentError(f"{tool}: 'kinds' must be a list of: {', '.join(KINDS)}")
    return set(value)


def _utc(iso: str) -> str:
    """ISO timestamps compare as text once they share one form (UTC, `+00:00`)."""
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).astimezone(UTC).isoformat()
    except ValueError:
        return iso
