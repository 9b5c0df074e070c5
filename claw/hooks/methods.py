"""RPC methods `hooks.list`, `hooks.enable` and `hooks.disable` (registered when the extension loads).

Enabling and disabling write `[hooks.entries.<name>]` in config.toml (comments kept, the whole
file validated first) and take effect at once in the gateway that did it.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import Field

from claw.config_edit import editing, set_value
from claw.errors import NotFoundError, UsageError
from claw.gateway.gateway import Gateway
from claw.gateway.rpc_params import AgentParams, NonEmptyStr, takes

if TYPE_CHECKING:
    from claw.gateway.capability import Method
    from claw.hooks.registry import HookRegistry


class HookParams(AgentParams):
    name: NonEmptyStr = Field(description="a hook name")


@takes(AgentParams)
async def hooks_list(registry: HookRegistry, gw: Gateway, params: AgentParams) -> list[dict[str, Any]]:
    """Rows `name, description, events, source, enabled, status, reason, path`: every hook found for the agent."""
    gw.config.agent(params.agent_id)
    return await asyncio.to_thread(registry.rows, params.agent_id)


@takes(HookParams)
async def hooks_enable(registry: HookRegistry, gw: Gateway, params: HookParams) -> dict[str, Any]:
    return await _toggle(registry, gw, params, True)


@takes(HookParams)
async def hooks_disable(registry: HookRegistry, gw: Gateway, params: HookParams) -> dict[str, Any]:
    return await _toggle(registry, gw, params, False)


async def _toggle(registry: HookRegistry, gw: Gateway, params: HookParams, enabled: bool) -> dict[str, Any]:
    agent_id, name = params.agent_id, params.name
    gw.config.agent(agent_id)
    found = await asyncio.to_thread(registry.discover, agent_id)
    hook = found.get(name)
    if hook is None:
        invalid = next((bad for bad in found.invalid if bad.name == name), None)
        if invalid is not None:
            raise UsageError(f"hook {name!r} at {invalid.directory} cannot be loaded: {invalid.reason}")
        raise NotFoundError(f"no hook named {name!r} (see `claw hooks ls`)")
    entry: dict[str, Any] = {"enabled": True, "source": hook.source} if enabled else {"enabled": False}
    await asyncio.to_thread(_write_entry, gw, name, entry)
    registry.reload_settings()
    row = next(r for r in await asyncio.to_thread(registry.rows, agent_id) if r["name"] == name)
    return row


def _write_entry(gw: Gateway, name: str, entry: dict[str, Any]) -> None:
    path = gw.paths.config_file
    with editing(path) as doc:
        set_value(doc, ("hooks", "entries", name), entry)


def hook_methods(registry: HookRegistry) -> dict[str, Method]:
    """These methods by wire name, bound to `registry`."""
    return {
        "hooks.list": partial(hooks_list, registry),
        "hooks.enable": partial(hooks_enable, registry),
        "hooks.disable": partial(hooks_disable, registry),
    }
