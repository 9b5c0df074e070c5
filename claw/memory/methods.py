"""RPC methods `memory.search`, `memory.status`, `memory.index` and `memory.get`."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import TYPE_CHECKING, Any

from claw.errors import UsageError
from claw.gateway.gateway import Gateway
from claw.memory.files import is_memory_path, normalise
from claw.memory.get_tool import read_memory
from claw.paths import check_agent_id

if TYPE_CHECKING:
    from claw.gateway.capability import Method
    from claw.memory.manager import MemoryManager


def _agent(gw: Gateway, params: dict[str, Any]) -> str:
    agent_id = check_agent_id(str(params.get("agentId") or "main"))
    gw.config.agent(agent_id)
    return agent_id


def _optional_number(params: dict[str, Any], key: str, kind: type) -> Any:
    value = params.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise UsageError(f"invalid parameter {key!r}: a non-negative number")
    return kind(value)


async def memory_search(manager: MemoryManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """`{results, mode, model, note?, weights}`; with `explain`, each result carries its score parts."""
    query = params.get("query")
    if not isinstance(query, str) or not query.strip():
        raise UsageError("missing or invalid parameter 'query' (a non-empty string)")
    search_params = manager.params(
        query, _optional_number(params, "maxResults", int), _optional_number(params, "minScore", float)
    )
    outcome = await manager.search(_agent(gw, params), search_params)
    explain = bool(params.get("explain"))
    return {
        "query": query,
        "mode": outcome.mode,
        "model": outcome.model,
        "note": outcome.note,
        "weights": outcome.weights,
        "results": [hit.to_json(explain=explain) for hit in outcome.hits],
    }


async def memory_status(manager: MemoryManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Files and chunks indexed, when, and whether embeddings are on (the index is synced first)."""
    return await manager.status(_agent(gw, params))


async def memory_index(manager: MemoryManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Sync the index with the files now (`force`: rebuild it from scratch)."""
    agent_id = _agent(gw, params)
    report = await manager.sync(agent_id, force=bool(params.get("force")))
    return {**report.to_json(), "status": await manager.status(agent_id)}


async def memory_get(manager: MemoryManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Lines of MEMORY.md or a memory/ note: `{path, from, text}`."""
    agent_id = _agent(gw, params)
    rel = normalise(str(params.get("path") or ""))
    if not is_memory_path(rel):
        raise UsageError(f"not a memory file: {rel!r} (MEMORY.md or memory/*.md)")
    start = int(_optional_number(params, "from", int) or 1)
    lines = _optional_number(params, "lines", int)
    text = await asyncio.to_thread(read_memory, gw.workspace(agent_id), rel, start, lines)
    return {"path": rel, "from": start, "text": text}


def memory_methods(manager: MemoryManager) -> dict[str, Method]:
    """These methods by wire name, bound to `manager`."""
    return {
        "memory.search": partial(memory_search, manager),
        "memory.status": partial(memory_status, manager),
        "memory.index": partial(memory_index, manager),
        "memory.get": partial(memory_get, manager),
    }
