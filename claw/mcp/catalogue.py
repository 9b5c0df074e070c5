"""The prompt budget: above a threshold, MCP tools are a catalogue until the model loads a server.

Tool schemas are paid for on every model call. With many MCP tools, a turn is offered one tool,
`mcp_tool_search`, whose description is the catalogue (each tool's name and one line); calling it
with a server (or a search phrase) loads that server's full schemas into the session's next model
calls. What a session loaded stays loaded while the gateway runs. A tool named from the catalogue can
be called before its server is loaded: the registry finds it all the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from claw.mcp.tool import McpTool, one_line
from claw.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from claw.mcp.manager import McpManager

SEARCH_TOOL = "mcp_tool_search"
_MAX_LOADED_SESSIONS = 1000


class Catalogue:
    """Which servers each session loaded, and the search tool that loads them."""

    def __init__(self, manager: McpManager) -> None:
        self._manager = manager
        self._loaded: dict[str, set[str]] = {}

    def loaded(self, session_key: str) -> set[str]:
        return self._loaded.get(session_key, set())

    def load(self, session_key: str, servers: set[str]) -> None:
        if session_key not in self._loaded and len(self._loaded) >= _MAX_LOADED_SESSIONS:
            self._loaded.pop(next(iter(self._loaded)))  # the oldest session loads again if it needs to
        self._loaded.setdefault(session_key, set()).update(servers)

    def search_tool(self, offered: list[McpTool]) -> SearchTool:
        return SearchTool(self, description=_catalogue_text(offered))


def _catalogue_text(offered: list[McpTool]) -> str:
    lines = [
        "Load the full schemas of MCP tools before calling them. Give `server` to load all of a server's tools, "
        "or `query` (words) to load the servers whose tools match. Loaded tools are offered from your next step. "
        "Available MCP tools (name: summary):"
    ]
    lines += [f"- {t.name}: {one_line(t.description.split('] ', 1)[-1])}" for t in offered]
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class SearchTool:
    """`mcp_tool_search`: loads servers' schemas into the calling session."""

    catalogue: Catalogue
    description: str
    name: str = SEARCH_TOOL
    parameters: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {
                "server": {"type": "string", "description": "an MCP server's name: load all its tools"},
                "query": {"type": "string", "description": "words to match against tool names and descriptions"},
            },
        }
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        tools = self.catalogue._manager.agent_tools(ctx.agent_id)
        server, query = str(args.get("server") or "").strip(), str(args.get("query") or "").lower().split()
        if server:
            matched = [t for t in tools if t.connection.name == server]
        elif query:
            matched = [t for t in tools if all(w in f"{t.name} {t.description}".lower() for w in query)]
        else:
            return ToolResult("give `server` or `query`", is_error=True)
        if not matched:
            servers = sorted({t.connection.name for t in tools}) or ["none"]
            return ToolResult(f"no MCP tools match; servers up: {', '.join(servers)}", is_error=True)
        servers = {t.connection.name for t in matched}
        self.catalogue.load(ctx.session_key, servers)
        names = ", ".join(sorted(t.name for t in tools if t.connection.name in servers))
        return ToolResult(f"loaded the schemas of {', '.join(sorted(servers))}: {names}")
