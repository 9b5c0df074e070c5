"""Memory as a capability: the `memory_search` / `memory_get` tools, the recall prompt section and the
`memory.*` RPC methods, over one `MemoryManager` (its indexes open lazily, on first use)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from claw.gateway.capability import BaseCapability
from claw.memory.get_tool import MemoryGetTool
from claw.memory.manager import MemoryManager
from claw.memory.recall import MemoryRecall
from claw.memory.search_tool import MemorySearchTool
from claw.workspace import workspace_dir

if TYPE_CHECKING:
    from claw.agent.sections import PromptSectionSource
    from claw.config import Config
    from claw.gateway.capability import Method
    from claw.paths import Paths
    from claw.tools.base import Tool


class MemoryCapability(BaseCapability):
    """The agent's memory. Turned off in config, it offers no tools and no recall; its methods stay, so
    `claw memory status` can say so."""

    name = "memory"
    method_namespaces = ("memory.",)

    def __init__(self, paths: Paths, config: Config) -> None:
        self.manager = MemoryManager(paths, config, functools.partial(workspace_dir, paths, config))

    def tools(self) -> Sequence[Tool]:
        return (MemorySearchTool(self.manager), MemoryGetTool()) if self.manager.settings.enabled else ()

    def sections(self) -> Sequence[PromptSectionSource]:
        return (MemoryRecall(self.manager),) if self.manager.settings.enabled else ()

    def methods(self) -> Mapping[str, Method]:
        from claw.memory.methods import memory_methods  # on first use: see claw.gateway.method_table

        return memory_methods(self.manager)

    def close(self) -> None:
        self.manager.close()
