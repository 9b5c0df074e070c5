"""`McpManager`: the configured servers' connections, and their tools as the registry's `ToolSource`.

Asked for every turn (`tools_for`), it offers each agent the tools of the servers that are up and
allowed to it, filtered by each server's `tools` / `excludeTools`. Servers are started by the gateway
service (`startup = "eager"`), or by the first turn that could use them (lazy ones); a gateway's turn
waits only for a server's first start. A one-shot `claw agent -m` and the console wait for none
(`waits_for_start` False): a turn offers the tools of the servers up and, for the others, their last
listing (claw/mcp/listing_cache.py), and a server is started by the first call to one of its tools; one
never listed is started at once, its tools offered from the next turn.
Above `mcp.catalogueThreshold` tools, a turn gets the catalogue instead (`claw.mcp.catalogue`).
"""

from __future__ import annotations

import asyncio
import fnmatch
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from claw.mcp.catalogue import SEARCH_TOOL, Catalogue
from claw.mcp.connection import McpConnection
from claw.mcp.schema import check_schema, tool_name
from claw.mcp.tool import McpTool, description_of, text_of
from claw.untrusted import shown

if TYPE_CHECKING:
    from claw.config import Config
    from claw.mcp.sandboxing import SandboxContext
    from claw.paths import Paths
    from claw.settings.mcp import McpServerSettings, McpSettings
    from claw.tools.base import Tool

log = logging.getLogger(__name__)


class McpManager:
    """Every enabled server of `[mcp.servers]`, by name."""

    name = "mcp"

    def __init__(self, paths: Paths, settings: McpSettings, *, sandbox: SandboxContext | None = None) -> None:
        """`sandbox`: the config's sandboxing for stdio servers (`from_config` gives it); None runs every
        server unsandboxed."""
        self.settings = settings
        self.media_dir = paths.data_dir / "mcp" / "media"
        self.connections: dict[str, McpConnection] = {
            name: McpConnection(
                name,
                server,
                log_file=paths.logs_dir / f"mcp-{name}.log",
                restart_max_seconds=settings.restart_max_seconds,
                on_change=self._rebuild,
                sandbox=sandbox,
                listing_file=paths.data_dir / "mcp" / "listings" / f"{name}.json",
            )
            for name, server in settings.servers.items()
            if server.enabled
        }
        self.tools: dict[str, McpTool] = {}
        """Every offered tool of every server that is up, by its `<server>__<tool>` name."""
        self.skipped: dict[str, dict[str, str]] = {}
        """Per server, the tools left out and why (a bad name or schema)."""
        self.catalogue = Catalogue(settings, self.agent_tools)
        self.waits_for_start = True
        """A turn waits for the first start of the servers (a gateway); False (a one-shot turn, the console):
        it offers what is up and, of those still starting, their last listing (`cached_tools`)."""

    @classmethod
    def from_config(cls, paths: Paths, config: Config) -> McpManager:
        """The manager of `config`'s servers, sandboxed as its agents' `sandbox` settings say."""
        from claw.mcp.sandboxing import SandboxContext

        return cls(paths, config.mcp, sandbox=SandboxContext.from_config(paths, config))

    def start(self, *, eager_only: bool) -> None:
        """Start the servers' supervisors (only the eager ones, when the gateway starts); returns at once."""
        for connection in self.connections.values():
            if not eager_only or connection.settings.startup == "eager":
                connection.start()

    async def ensure_started(self) -> None:
        """Start what is not started yet, and wait for every server still in its first start."""
        self.start(eager_only=False)
        pending = [c for c in self.connections.values() if c.status.state == "starting" and c.status.restarts == 0]
        if pending:
            limit = max(c.settings.startup_timeout_seconds for c in pending) + 5
            waits = [asyncio.ensure_future(c.wait_first_attempt()) for c in pending]
            _, late = await asyncio.wait(waits, timeout=limit)
            for wait in late:
                wait.cancel()

    async def aclose(self) -> None:
        await asyncio.gather(*(c.aclose() for c in self.connections.values()), return_exceptions=True)
        self.tools = {}

    # --- the ToolSource ------------------------------------------------------------------------

    async def tools_for(self, agent_id: str, session_key: str) -> Sequence[Tool]:
        if self.waits_for_start:
            await self.ensure_started()
        else:  # a server listed before is started by its first call; one never listed starts now, for next time
            for connection in self.connections.values():
                if not connection.cached_tools:
                    connection.start()
            self._rebuild()
        offered = [t for t in self.tools.values() if _for_agent(t.connection.settings, agent_id)]
        if len(offered) <= self.settings.catalogue_threshold:
            return offered
        loaded = self.catalogue.loaded(session_key)
        return [self.catalogue.search_tool(offered), *(t for t in offered if t.name in loaded)]

    def find(self, name: str, agent_id: str) -> Tool | None:
        if name == SEARCH_TOOL:
            return self.catalogue.search_tool(self.agent_tools(agent_id))
        tool = self.tools.get(name)
        if tool is None or not _for_agent(tool.connection.settings, agent_id):
            return None
        return tool

    def agent_tools(self, agent_id: str) -> list[McpTool]:
        return [t for t in self.tools.values() if _for_agent(t.connection.settings, agent_id)]

    # --- building the tools from the listings -----------------------------------------------------

    def _rebuild(self) -> None:
        """Called when a server comes up, goes down or changes its list: the tools as they are now."""
        tools: dict[str, McpTool] = {}
        for server, connection in self.connections.items():
            skipped: dict[str, str] = {}
            state = connection.status.state
            listed = (
                connection.status.tools
                if state == "up"
                else connection.cached_tools
                if state in ("starting", "stopped")
                else []
            )
            if listed:
                for raw in listed:
                    built = self._tool(server, connection, raw)
                    if isinstance(built, str):
                        skipped[raw.name] = built
                    elif _wanted(connection.settings, raw.name) and built.name not in tools:
                        tools[built.name] = built
            self.skipped[server] = skipped
        self.tools = tools

    def _tool(self, server: str, connection: McpConnection, raw: Any) -> McpTool | str:
        name = tool_name(server, raw.name)
        if name is None:
            return f"{server}__{shown(raw.name)} is not a tool name providers accept (letters, digits, _ and -, ≤ 64)"
        checked = check_schema(raw.input_schema)
        if checked.parameters is None:
            return checked.problem
        annotations = getattr(raw, "annotations", None)
        return McpTool(
            name=name,
            description=description_of(raw.description, server),
            text=text_of(raw.description),
            parameters=checked.parameters,
            remote_name=raw.name,
            read_only=bool(annotations and annotations.read_only_hint),
            connection=connection,
            media_dir=self.media_dir,
        )


def _wanted(settings: McpServerSettings, tool: str) -> bool:
    included = any(fnmatch.fnmatchcase(tool, pattern) for pattern in settings.tools)
    return included and not any(fnmatch.fnmatchcase(tool, pattern) for pattern in settings.exclude_tools)


def _for_agent(settings: McpServerSettings, agent_id: str) -> bool:
    return "*" in settings.agents or agent_id in settings.agents
