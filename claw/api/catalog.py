"""`agents.get` and `commands.list`: what a client asks once to offer an agent's model and window and the
slash commands for completion."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from claw.api.method import RpcMethod, table
from claw.api.params import (
    AgentParams,
    NoParams,
    takes,
)
from claw.protocol.scopes import READ

if TYPE_CHECKING:
    from claw.api.host import ApiHost


@takes(AgentParams)
async def agents_get(gw: ApiHost, params: AgentParams) -> dict[str, Any]:
    """What a client needs to know about an agent: its model chain and context window."""
    agent_id = params.agent_id
    settings = gw.config.agent(agent_id)
    chain = settings.model.chain()
    return {
        "agentId": agent_id,
        "models": chain,
        "contextTokens": gw.runner.context.window(settings, chain),  # what a turn budgets with, as /context
        "bootstrapMaxChars": settings.bootstrap_max_chars,
        "workspace": str(gw.workspace(agent_id)),
    }


@takes(NoParams)
async def commands_list(gw: ApiHost, params: NoParams) -> dict[str, Any]:
    """The slash commands the gateway handles, for completion in clients, as OpenClaw's command catalog:
    each typed as text (`/name args`) and, the core's and the capabilities' alike, `native` (OpenClaw's
    other sources, skills and plugins, are commands of its own plugin system)."""
    rows = [{"name": c.name, "description": c.description, "source": "native", "scope": "text", "acceptsArgs": True}
            for c in gw.commands.listing()]  # fmt: skip
    return {"commands": rows}


CATALOG_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("agents.get", READ, agents_get),
    RpcMethod("commands.list", READ, commands_list),
)
"""`agents.get` and `commands.list`, by wire name (part of `claw.api.core.CORE_METHODS`)."""
