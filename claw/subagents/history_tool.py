"""The `sessions_history` tool: the last messages of a session, sanitised and bounded.

Only what a reader needs survives: role, text, time (and for tool rows, with `includeTools`, the
tool's name and whether it failed). Internal fields (run ids, models, display copies) are dropped,
control characters are removed, a row over the size limit is replaced by a marker, and the
whole answer stops at a total budget, newest rows kept.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import TYPE_CHECKING, Any

from claw.subagents.session_access import target_entry
from claw.tools.args import int_arg, str_arg
from claw.tools.base import ToolContext, ToolResult
from claw.vocab.session_keys import agent_of

if TYPE_CHECKING:
    from claw.gateway.host import SessionLookup

DEFAULT_LIMIT = 20
MAX_LIMIT = 100
MAX_ROW_CHARS = 4_000
MAX_TOTAL_CHARS = 40_000
OMITTED = "[sessions_history omitted: message too large]"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class HistoryTool:
    name = "sessions_history"
    description = (
        "Read the latest messages of a session (key from sessions_list): role, text and time, oldest "
        f"first. `limit` (default {DEFAULT_LIMIT}, at most {MAX_LIMIT}); `includeTools` adds tool calls and "
        f"results. Messages over {MAX_ROW_CHARS} chars are replaced by a marker."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "sessionKey": {"type": "string", "description": "e.g. agent:main:subagent:<id>"},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
            "includeTools": {"type": "boolean"},
        },
        "required": ["sessionKey"],
        "additionalProperties": False,
    }

    def __init__(self, host: SessionLookup) -> None:
        self._host = host

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        raw_key = str_arg(args, "sessionKey", tool=self.name, allow_empty=False)
        limit = min(MAX_LIMIT, int_arg(args, "limit", tool=self.name) or DEFAULT_LIMIT)
        with_tools = args.get("includeTools") is True
        entry = target_entry(self._host, ctx, raw_key, self.name)
        store = self._host.sessions(agent_of(entry.session_key))
        lines = await asyncio.to_thread(store.transcript(entry).read)
        rows = [row for line in lines if (row := sanitise(line, with_tools)) is not None]
        picked: list[dict[str, Any]] = []
        used = 0
        for row in reversed(rows[-limit:]):
            size = len(row.get("content", ""))
            if picked and used + size > MAX_TOTAL_CHARS:
                break
            picked.append(row)
            used += size
        picked.reverse()
        reply = {"sessionKey": entry.session_key, "messages": picked, "total": len(rows)}
        return ToolResult(json.dumps(reply, ensure_ascii=False))


def sanitise(line: dict[str, Any], with_tools: bool) -> dict[str, Any] | None:
    """The reader's view of one transcript line, or None to leave it out."""
    role = line.get("role")
    if line.get("type") == "compaction":
        role, content = "system", f"[summary of earlier messages] {line.get('summary', '')}"
    elif role not in ("user", "assistant", "system", "tool") or (role == "tool" and not with_tools):
        return None
    else:
        content = _text(line.get("content"))
    calls = [c.get("name", "") for c in line.get("toolCalls") or () if isinstance(c, dict)] if with_tools else []
    if role == "assistant" and not content and not calls:
        return None
    content = _CONTROL.sub("", content)
    row: dict[str, Any] = {"role": role, "content": content if len(content) <= MAX_ROW_CHARS else OMITTED}
    if isinstance(line.get("createdAt"), str):
        row["createdAt"] = line["createdAt"]
    if calls:
        row["toolCalls"] = calls
    if role == "tool":
        row["name"] = str(line.get("name", ""))
        row["isError"] = bool(line.get("isError"))
    if line.get("aborted"):
        row["aborted"] = True
    return row


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else str(content)
