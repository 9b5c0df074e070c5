"""Plugs memory into the gateway: the `memory_search` / `memory_get` tools, the recall prompt section and
the `memory.*` RPC methods. Each gateway gets its own `MemoryManager` (indexes are opened lazily)."""

from __future__ import annotations

import functools
import weakref
from typing import TYPE_CHECKING

from claw.memory.get_tool import MemoryGetTool
from claw.memory.manager import MemoryManager
from claw.memory.recall import MemoryRecall
from claw.memory.search_tool import MemorySearchTool
from claw.workspace import workspace_dir

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway

_MANAGERS: weakref.WeakKeyDictionary[Gateway, MemoryManager] = weakref.WeakKeyDictionary()


def manager_for(gateway: Gateway) -> MemoryManager:
    """The gateway's memory manager, created on first use and closed when the gateway goes away."""
    found = _MANAGERS.get(gateway)
    if found is None:
        # Not `gateway.workspace`: a bound method would keep the gateway alive through this cache.
        workspace_of = functools.partial(workspace_dir, gateway.paths, gateway.config)
        found = MemoryManager(gateway.paths, gateway.config, workspace_of)
        _MANAGERS[gateway] = found
        weakref.finalize(gateway, found.close)
    return found


def install(gateway: Gateway) -> None:
    from claw.memory import methods as _methods  # noqa: F401 - registers memory.search / memory.status / memory.index

    manager = manager_for(gateway)
    if not manager.settings.enabled:
        return
    for tool in (MemorySearchTool(manager), MemoryGetTool()):
        if gateway.tools.get(tool.name) is None:
            gateway.tools.register(tool)
    gateway.runner.sections.append(MemoryRecall(manager))
