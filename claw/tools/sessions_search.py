"""The `sessions_search` tool: the agent looks through its own past conversations.

Offered per agent by `tools.sessions.search` (`local`, the default: only in sessions the operator
talks in from this machine's clients, the CLI and the console; `all`; `off`), because a channel
session's sender (a group member, a customer) must not be able to make the agent read out what was
said in the operator's other conversations. Where it is not offered it is left out of the tools the
model sees, and a call made anyway is refused (`ToolContext.denied_tools`).

It reads the index the way `claw sessions search` does (`claw.store.search_sync.catch_up`, then an
FTS query), through a session store of its own on the agent's index: several stores may share one.
Answers are bounded: at most `MAX_LIMIT` snippets, each cut to a line.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import TYPE_CHECKING, Any

from claw.store.search_sync import catch_up
from claw.store.sessions import SessionStore
from claw.tools.args import int_arg, str_arg
from claw.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from claw.config import AgentSettings
    from claw.paths import Paths

NAME = "sessions_search"
DEFAULT_LIMIT = 10
MAX_LIMIT = 30
LOCAL_CHANNELS = frozenset({"cli", "tui", "ws"})
"""The operator's own clients: `claw agent`, the console, a WebSocket client holding the gateway token."""


def search_denial(settings: AgentSettings, channel: str) -> dict[str, str]:
    """`{NAME: why}` when the agent's setting keeps the tool from a run on `channel`; else {}."""
    mode = settings.tools.sessions.search
    if mode == "all" or (mode == "local" and channel in LOCAL_CHANNELS):
        return {}
    why = "turned off for this agent" if mode == "off" else f"not offered in {channel} sessions"
    return {NAME: f"{why} (tools.sessions.search)"}


class SessionsSearchTool:
    name = NAME
    description = (
        "Search the text of your past conversations with this user (every session of this agent, archived "
        "ones too) for messages containing all the given words. Newest first; each result gives the "
        "session key (read more with sessions_history), the time, who said it and a snippet with the "
        f"matched words in [brackets]. `limit` default {DEFAULT_LIMIT}, at most {MAX_LIMIT}; `since` an ISO date."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "words to find, e.g. 'zebra crossing'"},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
            "since": {"type": "string", "description": "only messages since this ISO-8601 date/time"},
        },
        "required": ["query"],
        "additionalProperties": False,
    }

    def __init__(self, paths: Paths) -> None:
        self._paths = paths
        self._stores: dict[str, SessionStore] = {}
        self._lock = threading.Lock()

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        denied = search_denial(ctx.settings, ctx.channel)
        if denied:
            return ToolResult(f"{NAME} is not available here: {denied[NAME]}", is_error=True)
        query = str_arg(args, "query", tool=self.name, allow_empty=False)
        limit = min(MAX_LIMIT, int_arg(args, "limit", tool=self.name) or DEFAULT_LIMIT)
        since = args.get("since") if isinstance(args.get("since"), str) and args.get("since") else None
        rows = await asyncio.to_thread(self._search, ctx.agent_id, query, limit, since)
        return ToolResult(json.dumps({"query": query, "results": rows}, ensure_ascii=False))

    def _search(self, agent_id: str, query: str, limit: int, since: str | None) -> list[dict[str, Any]]:
        store = self._store(agent_id)
        index = store.search_index()
        catch_up(store, index)
        current = {entry.session_id: entry.session_key for entry in store.list()}
        rows = []
        for hit in index.search(query, limit=limit, since=since):
            text, last = [], 0
            for start, end in hit.snippet.spans:
                text += [hit.snippet.text[last:start], "[", hit.snippet.text[start:end], "]"]
                last = end
            text.append(hit.snippet.text[last:])
            key = current.get(hit.session_id)
            rows.append(
                {
                    "sessionKey": key or hit.session_key,
                    "archived": key is None,
                    "createdAt": hit.created_at,
                    "role": hit.role,
                    "snippet": "".join(text),
                }
            )
        return rows

    def _store(self, agent_id: str) -> SessionStore:
        with self._lock:
            if agent_id not in self._stores:
                self._stores[agent_id] = SessionStore(self._paths.sessions_dir(agent_id))
            return self._stores[agent_id]
