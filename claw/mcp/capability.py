"""MCP as a capability: the servers' tools (a `ToolSource` on the registry, added in `claw.compose`),
the service that starts eager servers with the gateway, `/mcp`, and the `mcp.status` / `mcp.tools`
RPC methods that `claw mcp ls` asks a running gateway, and claw's own MCP server at `/mcp` on the gateway's
port. Closing it stops every server process."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from claw.gateway.capability import BaseCapability, Command, HttpRoute
from claw.gateway.rpc_params import AgentParams, NoParams, OptionalStr, takes
from claw.mcp.http_serve import MCP_PATH, McpHttpEndpoint
from claw.mcp.manager import McpManager
from claw.mcp.prompts import run_prompt
from claw.mcp.status import schema_share, server_rows, tool_rows

if TYPE_CHECKING:
    from claw.gateway.capability import Method
    from claw.gateway.commands import CommandCall, RunInstead
    from claw.gateway.services import GatewayService
    from claw.mcp.host import McpHost
    from claw.tools.registry import ToolSource


class McpCapability(BaseCapability):
    name = "mcp"
    method_namespaces = ("mcp.",)

    def __init__(self, host: McpHost) -> None:
        self.host = host
        self.manager = McpManager(host.paths, host.config.mcp)
        self.endpoint = McpHttpEndpoint(host)

    def tool_sources(self) -> Sequence[ToolSource]:
        return (self.manager,)

    def services(self) -> Sequence[GatewayService]:
        return (McpService(self.manager),)

    def commands(self) -> Sequence[Command]:
        help_text = "MCP servers, tools and schema share; /mcp prompt SERVER NAME [key=value…] runs a server's prompt"
        return (Command("mcp", help_text, self._command),)

    def methods(self) -> Mapping[str, Method]:
        manager = self.manager

        @takes(NoParams)
        async def status(_gateway: object, _params: NoParams) -> list[dict[str, Any]]:
            """Every configured server: state, tool count, restarts, last error."""
            return server_rows(manager)

        @takes(ToolsParams)
        async def tools(_gateway: object, params: ToolsParams) -> list[dict[str, Any]]:
            """The tools offered (and those skipped, with the reason), of one server or all."""
            return tool_rows(manager, params.server)

        return {"mcp.status": status, "mcp.tools": tools}

    def routes(self) -> Sequence[HttpRoute]:
        return (HttpRoute("*", MCP_PATH, self.endpoint.handle),)

    async def aclose(self) -> None:
        await self.endpoint.aclose()
        await self.manager.aclose()

    async def _command(self, gw: Any, call: CommandCall) -> str | RunInstead:
        words = call.args.split()
        if words[:1] == ["prompt"]:
            return await run_prompt(self.manager, words[1:])
        schemas = await gw.tools.turn_schemas(call.agent_id, call.session_key)
        total, mcp = schema_share(schemas, self.manager)
        lines = [
            f"{r['name']}: {r['state']}, {r['tools']} tools" + (f" — {r['lastError']}" if r["lastError"] else "")
            for r in server_rows(self.manager)
        ] or ["no MCP servers configured (claw mcp add NAME -- COMMAND …)"]
        share = f"{mcp * 100 // total}%" if total else "0%"
        lines.append(f"MCP tool schemas: {mcp:,} of {total:,} schema characters this turn ({share})")
        return "\n".join(lines)


class ToolsParams(AgentParams):
    server: OptionalStr = None


class McpService:
    """Starts the eager servers with the gateway (without waiting for them); stops all of them."""

    name = "mcp"

    def __init__(self, manager: McpManager) -> None:
        self.manager = manager

    async def start(self, gateway: object) -> None:
        self.manager.start(eager_only=True)

    async def stop(self) -> None:
        await self.manager.aclose()
