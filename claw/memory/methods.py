"""RPC methods `memory.search`, `memory.status`, `memory.index` and `memory.get`.

Each is bound to the capability's `MemoryManager`, which knows the agents' workspaces: none needs the
gateway that `Gateway.call_method` hands every method first.
"""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import Field

from claw.api.method import RpcMethod, table
from claw.api.params import (
    AgentParams,
    Flag,
    NonEmptyStr,
    NonNegativeInt,
    NonNegativeNumber,
    OptionalStr,
    takes,
)
from claw.errors import UsageError
from claw.memory.files import is_memory_path, normalise
from claw.memory.get_tool import read_memory
from claw.protocol.scopes import ADMIN, READ

if TYPE_CHECKING:
    from claw.memory.manager import MemoryManager


class MemorySearchParams(AgentParams):
    query: NonEmptyStr
    max_results: NonNegativeInt | None = None
    min_score: NonNegativeNumber | None = None
    explain: Flag = False


class MemoryIndexParams(AgentParams):
    force: Flag = False


class MemoryGetParams(AgentParams):
    path: OptionalStr = Field(None, description="MEMORY.md or memory/<name>.md")
    start: NonNegativeInt | None = Field(None, alias="from", description="a line number >= 1 (default 1)")
    lines: NonNegativeInt | None = None


def _agent(manager: MemoryManager, params: AgentParams) -> str:
    manager.workspace(params.agent_id)  # a configured agent, or ConfigError
    return params.agent_id


@takes(MemorySearchParams)
async def memory_search(manager: MemoryManager, _gateway: object, params: MemorySearchParams) -> dict[str, Any]:
    """`{results, mode, model, note?, weights}`; with `explain`, each result carries its score parts."""
    search_params = manager.params(params.query, params.max_results, params.min_score)
    outcome = await manager.search(_agent(manager, params), search_params)
    return {
        "query": params.query,
        "mode": outcome.mode,
        "model": outcome.model,
        "note": outcome.note,
        "weights": outcome.weights,
        "results": [hit.to_json(explain=params.explain) for hit in outcome.hits],
    }


@takes(AgentParams)
async def memory_status(manager: MemoryManager, _gateway: object, params: AgentParams) -> dict[str, Any]:
    """Files and chunks indexed, when, and whether embeddings are on (the index is synced first)."""
    return await manager.status(_agent(manager, params))


@takes(MemoryIndexParams)
async def memory_index(manager: MemoryManager, _gateway: object, params: MemoryIndexParams) -> dict[str, Any]:
    """Sync the index with the files now (`force`: rebuild it from scratch)."""
    agent_id = _agent(manager, params)
    report = await manager.sync(agent_id, force=params.force)
    return {**report.to_json(), "status": await manager.status(agent_id)}


@takes(MemoryGetParams)
async def memory_get(manager: MemoryManager, _gateway: object, params: MemoryGetParams) -> dict[str, Any]:
    """Lines of MEMORY.md or a memory/ note: `{path, from, text}`."""
    workspace = manager.workspace(params.agent_id)  # a configured agent's, or ConfigError
    rel = normalise(params.path or "")
    if not is_memory_path(rel):
        raise UsageError(f"not a memory file: {rel!r} (MEMORY.md or memory/*.md)")
    start = params.start or 1
    # The owner's own read (CLI, console): the hard-link rule guards the agent's tools, not the owner.
    text = await asyncio.to_thread(read_memory, workspace, rel, start, params.lines, allow_hardlinks=True)
    return {"path": rel, "from": start, "text": text}


def memory_methods(manager: MemoryManager) -> dict[str, RpcMethod]:
    """These methods by wire name, bound to `manager`."""
    return table(
        RpcMethod("memory.search", READ, partial(memory_search, manager)),
        RpcMethod("memory.status", READ, partial(memory_status, manager)),
        RpcMethod("memory.index", ADMIN, partial(memory_index, manager)),
        RpcMethod("memory.get", READ, partial(memory_get, manager)),
    )
