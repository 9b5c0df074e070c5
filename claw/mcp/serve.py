"""claw as an MCP server: the tools other MCP clients (Claude Code, Cursor, another agent) get.

`build_server(client)` makes an SDK `MCPServer` over any `GatewayClient`: the running gateway over
WebSocket, or one in this process. Its tools send a message to an agent's session and wait for the
reply, list sessions, read a session's history, search memory and list automations, each one RPC
method of the gateway, so the same permissions and limits apply as for any other client.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from claw.client.protocol import GatewayClient

INSTRUCTIONS = (
    "claw is a personal AI agent gateway. send_message asks one of its agents (default `main`) and returns the "
    "reply; the other tools read its sessions, memory and automations."
)
_HISTORY_TEXT_CHARS = 4000


def build_server(client: GatewayClient, *, name: str = "claw") -> MCPServer:
    from mcp.server.mcpserver import MCPServer

    server = MCPServer(name, instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(description="Send a message to a claw agent's session and return the agent's reply.")
    async def send_message(message: str, agent: str = "main", session: str | None = None) -> str:
        return await _answer(reply_to(client, message, agent, session))

    @server.tool(description="List an agent's sessions (key, id, channel, last update).")
    async def list_sessions(agent: str = "main") -> str:
        return _json(await _answer(client.call("sessions.list", agentId=agent)))

    @server.tool(description="Read the latest messages of a session (give its key from list_sessions).")
    async def read_session(session: str, agent: str = "main", limit: int = 20) -> str:
        history = await _answer(client.call("chat.history", agentId=agent, sessionKey=session, limit=limit))
        lines = []
        for entry in history.get("messages", []):
            if entry.get("role") in ("user", "assistant", "tool") and entry.get("content"):
                lines.append(f"{entry['role']}: {str(entry['content'])[:_HISTORY_TEXT_CHARS]}")
        return "\n\n".join(lines) or "(no messages)"

    @server.tool(description="Search an agent's memory notes; returns the best matching snippets.")
    async def search_memory(query: str, agent: str = "main", max_results: int = 5) -> str:
        return _json(await _answer(client.call("memory.search", agentId=agent, query=query, maxResults=max_results)))

    @server.tool(description="List the scheduled automations (cron jobs) and their next runs.")
    async def list_automations() -> str:
        return _json(await _answer(client.call("automations.list")))

    return server


async def reply_to(client: GatewayClient, message: str, agent: str, session: str | None) -> str:
    """Run `message` as a turn and return its reply (or say how it ended when it did not reply)."""
    handle = await client.run(message, agent_id=agent, session_key=session)
    if handle.run_id is None:
        return handle.reply or handle.error or handle.status
    async for event in client.events(handle.run_id):
        phase = event.data.get("phase") if event.stream == "lifecycle" else None
        if phase == "end":
            return str(event.data.get("text") or "")
        if phase in ("error", "aborted"):
            raise RuntimeError(f"the run {phase}: {event.data.get('message') or phase}")
    raise RuntimeError("the run's events ended without a reply")


async def _answer(work: Awaitable[Any]) -> Any:
    """`work`'s result; a failure claw explains (an unknown agent, a run that ended in an error) reaches the
    client with its cause, as a `ToolError`: the SDK would otherwise send only "Error executing tool X"."""
    from mcp.server.mcpserver.exceptions import ToolError

    from claw.errors import ClawError

    try:
        return await work
    except (ClawError, RuntimeError) as exc:
        raise ToolError(str(exc)) from exc


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=1, default=str)
