"""MCP as a capability: the servers' tools (a `ToolSource` on the registry), the service that starts eager
servers with the gateway, `/mcp`, the `mcp.status` / `mcp.tools` RPC methods that `claw mcp ls` asks a
running gateway, and claw's own MCP server at `/mcp` on the gateway's port. Closing it stops every server
process.

With no server configured, a gateway imports none of the machinery: the manager, the SDK endpoint and the
methods are built when first needed (a one-shot `claw agent -m` of a user without MCP servers pays nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from claw.gateway.capability import BaseCapability, Command, HttpRoute

if TYPE_CHECKING:
    from claw.gateway.capability import Method
    from claw.gateway.commands import CommandCall, Fallback, RunInstead
    from claw.gateway.services import GatewayService
    from claw.mcp.host import McpHost
    from claw.mcp.http_serve import McpHttpEndpoint
    from claw.mcp.manager import McpManager
    from claw.tools.registry import ToolSource


class McpCapability(BaseCapability):
    name = "mcp"
    method_namespaces = ("mcp.",)

    def __init__(self, host: McpHost) -> None:
        self.host = host
        self.waits_for_servers = True
        """False: turns do not wait for servers to start (`dont_wait_for_servers`)."""

    def dont_wait_for_servers(self) -> None:
        """For a one-shot turn and the console: a turn starts its model call at once, with the tools of the
        servers that are up or were listed before; a call to a server still starting waits for it."""
        self.waits_for_servers = False
        if "manager" in self.__dict__:
            self.manager.waits_for_start = False

    @cached_property
    def manager(self) -> McpManager:
        from claw.mcp.manager import McpManager

        manager = McpManager.from_config(self.host.paths, self.host.config)
        manager.waits_for_start = self.waits_for_servers
        return manager

    @cached_property
    def endpoint(self) -> McpHttpEndpoint:
        from claw.mcp.http_serve import McpHttpEndpoint

        return McpHttpEndpoint(self.host)

    def _configured(self) -> bool:
        return any(server.enabled for server in self.host.config.mcp.servers.values())

    def tool_sources(self) -> Sequence[ToolSource]:
        return (self.manager,) if self._configured() else ()

    def services(self) -> Sequence[GatewayService]:
        return (McpService(self.manager),) if self._configured() else ()

    def commands(self) -> Sequence[Command]:
        help_text = "MCP servers, tools and schema share; /mcp:SERVER:PROMPT [key=value…] runs a server's prompt"
        return (Command("mcp", help_text, self._command),)

    def command_fallbacks(self) -> Sequence[Fallback]:
        return (self._prompt_fallback,)

    async def _prompt_fallback(self, gw: Any, call: CommandCall) -> RunInstead | None:
        """`/mcp:SERVER:PROMPT …`; any other name (and this one, with no server configured) is not ours."""
        if not call.name.startswith("mcp:") or not self._configured():
            return None
        from claw.mcp.prompts import prompt_command

        return await prompt_command(self.manager, call.name, call.args)

    def methods(self) -> Mapping[str, Method]:
        from claw.mcp.methods import mcp_methods  # on first use: see claw.gateway.method_table

        return mcp_methods(self.manager)

    def routes(self) -> Sequence[HttpRoute]:
        from claw.mcp.http_serve import MCP_PATH  # (a light module: the SDK is imported on the first request)

        async def handle(request: Any) -> Any:  # the SDK's endpoint is built on the first request
            return await self.endpoint.handle(request)

        return (HttpRoute("*", MCP_PATH, handle),)

    async def aclose(self) -> None:
        if "endpoint" in self.__dict__:
            await self.endpoint.aclose()
        if "manager" in self.__dict__:
            await self.manager.aclose()

    async def _command(self, gw: Any, call: CommandCall) -> str | RunInstead:
        from claw.mcp.prompts import prompt_words, run_prompt
        from claw.mcp.status import schema_share, server_rows

        words = call.args.split()
        if words[:1] == ["prompt"]:
            return await run_prompt(self.manager, prompt_words(call.args)[1:])
        schemas = await gw.tools.turn_schemas(call.agent_id, call.session_key)
        total, mcp = schema_share(schemas, self.manager)
        lines = [
            f"{r['name']}: {r['state']}, {r['tools']} tools" + (f" — {r['lastError']}" if r["lastError"] else "")
            for r in server_rows(self.manager)
        ] or ["no MCP servers configured (claw mcp add NAME -- COMMAND …)"]
        share = f"{mcp * 100 // total}%" if total else "0%"
        lines.append(f"MCP tool schemas: {mcp:,} of {total:,} schema characters this turn ({share})")
        return "\n".join(lines)


class McpService:
    """Starts the eager servers with the gateway (without waiting for them); stops all of them."""

    name = "mcp"

    def __init__(self, manager: McpManager) -> None:
        self.manager = manager

    async def start(self, gateway: object) -> None:
        self.manager.start(eager_only=True)

    async def stop(self) -> None:
        await self.manager.aclose()
