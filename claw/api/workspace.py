"""`workspace.read` and `workspace.write`: an agent's workspace files (SOUL.md, USER.md …) by name."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from claw.api.method import RpcMethod, table
from claw.api.params import (
    AgentParams,
    NonEmptyStr,
    takes,
)
from claw.protocol.scopes import ADMIN, READ
from claw.safe_read import read_agent_text_async
from claw.workspace import resolve_name

if TYPE_CHECKING:
    from claw.api.host import ApiHost


class WorkspaceFileParams(AgentParams):
    name: NonEmptyStr = Field(description="a workspace file name, e.g. USER.md or user")


class WorkspaceWriteParams(WorkspaceFileParams):
    content: str = Field(description="a string")


@takes(WorkspaceFileParams)
async def workspace_read(gw: ApiHost, params: WorkspaceFileParams) -> dict[str, Any]:
    agent_id = params.agent_id
    name = resolve_name(params.name)
    workspace = gw.workspace(agent_id)
    path = workspace / name
    # The agent can plant a link or a FIFO here: read by the rule for agent-writable files (a refusal is the
    # method's error, naming the file), never by following the name.
    hardlinks = gw.config.agent(agent_id).tools.files.allow_hardlinks
    text = await read_agent_text_async(workspace, name, allow_hardlinks=hardlinks) or ""
    return {
        "name": name,
        "path": str(path),
        "content": text,
        "cap": gw.config.agent(agent_id).bootstrap_max_chars,
    }


@takes(WorkspaceWriteParams)
async def workspace_write(gw: ApiHost, params: WorkspaceWriteParams) -> dict[str, Any]:
    from claw.store.atomic import atomic_write_text

    name, content = resolve_name(params.name), params.content
    path = gw.workspace(params.agent_id) / name
    await asyncio.to_thread(atomic_write_text, path, content, None)
    return {"name": name, "path": str(path), "chars": len(content)}


WORKSPACE_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("workspace.read", READ, workspace_read),
    RpcMethod("workspace.write", ADMIN, workspace_write),
)
"""The `workspace.*` methods, by wire name (part of `claw.api.core.CORE_METHODS`)."""
