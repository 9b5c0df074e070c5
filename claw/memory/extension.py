"""Plugs memory into the gateway: the `memory_search` / `memory_get` tools, the recall prompt section and
the `memory.*` RPC methods. Each gateway gets its own `MemoryManager` (indexes are opened lazily)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from claw.gateway.per_gateway import PerGateway
from claw.memory.get_tool import MemoryGetTool
from claw.memory.manager import MemoryManager
from claw.memory.recall import MemoryRecall
from claw.memory.search_tool import MemorySearchTool
from claw.workspace import workspace_dir

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway

def _make_manager(gateway: Gateway) -> MemoryManager:
    # Not `gateway.workspace`: a bound method would keep the gateway alive through the per-gateway cache.
    workspace_of = functools.partial(workspace_dir, gateway.paths, gateway.config)
    return MemoryManager(gateway.paths, gateway.config, workspace_of)


manager_for = PerGateway(_make_manager, MemoryManager.close)
"""The gateway's memory manager, created on first use and closed when the gateway goes away."""


def install(gateway: Gateway) -> None:
    from claw.memory import methods as _methods  # noqa: F401 - registers memory.search / memory.status / memory.index

    manager = manager_for(gateway)
    if not manager.settings.enabled:
        return
    for tool in (MemorySearchTool(manager), MemoryGetTool()):
        if gateway.tools.get(tool.name) is None:
            gateway.tools.register(tool)
    gateway.runner.sections.append(MemoryRecall(manager))
