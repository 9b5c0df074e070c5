"""RPC methods `hooks.list`, `hooks.enable` and `hooks.disable`.

Enabling and disabling write `[hooks.entries.<name>]` in config.toml (comments kept, the whole
file validated first) and take effect at once in the gateway that did it.

Each is bound to the capability's `HookRegistry` and its `HooksHost` (the settings, where config.toml
is); the gateway that `Gateway.call_method` hands every method first is not used.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from claw.api.method import RpcMethod, table
from claw.api.params import AgentParams, ClosedParams, NonEmptyStr, takes
from claw.config_edit import editing, set_value
from claw.errors import NotFoundError, UsageError
from claw.hooks.loader import HookLoadError, handler_digest
from claw.protocol.scopes import ADMIN, READ

if TYPE_CHECKING:
    from claw.hooks.host import HooksHost
    from claw.hooks.registry import HookRegistry


class HookParams(AgentParams):
    name: NonEmptyStr = Field(description="a hook name")


@takes(AgentParams)
async def hooks_list(
    registry: HookRegistry, host: HooksHost, _gateway: object, params: AgentParams
) -> list[dict[str, Any]]:
    """Rows `name, description, events, source, enabled, status, reason, path`: every hook found for the agent."""
    host.config.agent(params.agent_id)
    return await asyncio.to_thread(registry.rows, params.agent_id)


@takes(HookParams)
async def hooks_enable(registry: HookRegistry, host: HooksHost, _gateway: object, params: HookParams) -> dict[str, Any]:
    return await _toggle(registry, host, params, True)


@takes(HookParams)
async def hooks_disable(
    registry: HookRegistry, host: HooksHost, _gateway: object, params: HookParams
) -> dict[str, Any]:
    return await _toggle(registry, host, params, False)


async def _toggle(registry: HookRegistry, host: HooksHost, params: HookParams, enabled: bool) -> dict[str, Any]:
    agent_id, name = params.agent_id, params.name
    host.config.agent(agent_id)
    found = await asyncio.to_thread(registry.discover, agent_id)
    hook = found.get(name)
    if hook is None:
        invalid = next((bad for bad in found.invalid if bad.name == name), None)
        if invalid is not None:
            raise UsageError(f"hook {name!r} at {invalid.directory} cannot be loaded: {invalid.reason}")
        raise NotFoundError(f"no hook named {name!r} (see `claw hooks ls`)")
    entry: dict[str, Any] = {"enabled": True, "source": hook.source} if enabled else {"enabled": False}
    if enabled and hook.source == "workspace":
        # The agent can write its workspace: pin the handler.py the user enables, so a later change does
        # not run until the user enables the hook again (claw.hooks.loader).
        try:
            entry["sha256"] = await asyncio.to_thread(handler_digest, hook)
        except HookLoadError as exc:
            raise UsageError(f"hook {name!r} cannot be enabled: {exc}") from None
    await asyncio.to_thread(_write_entry, host.paths.config_file, name, entry)
    registry.reload_settings()
    row = next(r for r in await asyncio.to_thread(registry.rows, agent_id) if r["name"] == name)
    return row


def _write_entry(path: Path, name: str, entry: dict[str, Any]) -> None:
    with editing(path) as doc:
        set_value(doc, ("hooks", "entries", name), entry)


class HooksStatusParams(ClosedParams):
    """OpenClaw's `hooks.status`: one agent's hooks (default `main`)."""

    agent_id: str | None = None


_NO_MISSING: dict[str, list[str]] = {"bins": [], "anyBins": [], "env": [], "config": [], "os": []}


@takes(HooksStatusParams)
async def hooks_status(
    registry: HookRegistry, host: HooksHost, _gateway: object, params: HooksStatusParams
) -> dict[str, Any]:
    """OpenClaw's hook status report (`openclaw hooks list/check/info`): every hook claw found for the agent;
    `loadable` when it is enabled and runs, else `blockedReason` says why (disabled, shadowed, invalid)."""
    agent_id = params.agent_id or "main"
    host.config.agent(agent_id)
    rows = await asyncio.to_thread(registry.rows, agent_id)
    hooks = [
        {
            "name": row["name"],
            "hookKey": row["name"],
            "description": row["description"],
            "source": row["source"],
            "filePath": row["path"],
            "events": row["events"],
            "unknownEvents": [],
            "enabledByConfig": row["enabled"],
            "requirementsSatisfied": row["status"] != "invalid",
            "loadable": row["status"] == "enabled",
            **({} if row["status"] == "enabled" else {"blockedReason": row.get("reason") or row["status"]}),
            "managedByPlugin": False,
            "requirements": dict(_NO_MISSING),
            "missing": dict(_NO_MISSING),
            "install": [],
            "configChecks": [],
        }
        for row in rows
    ]
    return {"agentId": agent_id, "workspaceDir": str(host.workspace(agent_id)),
            "managedHooksDir": str(host.paths.hooks_dir), "hooks": hooks}  # fmt: skip


def hook_methods(registry: HookRegistry, host: HooksHost) -> dict[str, RpcMethod]:
    """These methods by wire name, bound to `registry` and `host`."""
    return table(
        RpcMethod("hooks.list", READ, partial(hooks_list, registry, host)),
        RpcMethod("hooks.enable", ADMIN, partial(hooks_enable, registry, host)),
        RpcMethod("hooks.disable", ADMIN, partial(hooks_disable, registry, host)),
        RpcMethod("hooks.status", READ, partial(hooks_status, registry, host)),
    )
