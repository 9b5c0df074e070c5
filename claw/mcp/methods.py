"""The `mcp.*` RPC methods (`claw mcp ls` / `claw mcp tools` through a running gateway), bound to the
capability's manager."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from claw.api.method import RpcMethod, table
from claw.api.params import AgentParams, NoParams, OptionalStr, takes
from claw.mcp.status import server_rows, tool_rows
from claw.protocol.scopes import ADMIN, READ

if TYPE_CHECKING:
    from claw.mcp.manager import McpManager


class ToolsParams(AgentParams):
    server: OptionalStr = None


@takes(NoParams)
async def mcp_status(manager: McpManager, _gateway: object, _params: NoParams) -> list[dict[str, Any]]:
    """Every configured server: state, tool count, restarts, last error, sandbox."""
    import asyncio

    from claw.tools.sandbox_probe import probe_sandbox

    await asyncio.to_thread(probe_sandbox)  # the rows say how a server would run: probe off the loop (once)
    return server_rows(manager)


@takes(ToolsParams)
async def mcp_tools(manager: McpManager, _gateway: object, params: ToolsParams) -> list[dict[str, Any]]:
    """The tools offered (and those skipped, with the reason), of one server or all."""
    return tool_rows(manager, params.server)


def mcp_methods(manager: McpManager) -> dict[str, RpcMethod]:
    return table(
        RpcMethod("mcp.status", READ, partial(mcp_status, manager)),
        RpcMethod("mcp.tools", ADMIN, partial(mcp_tools, manager)),
    )
