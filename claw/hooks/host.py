"""`HooksHost`: what the hooks capability asks of the gateway.

The settings and the agents' workspaces (to find hooks), and the gateway's hook bus: the capability
attaches its registry to it (`HookSource`) and fires `agent:bootstrap` on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from claw.gateway.host import Configured, Workspaces

if TYPE_CHECKING:
    from claw.gateway.hook_bus import HookBus


class HooksHost(Configured, Workspaces, Protocol):
    @property
    def hooks(self) -> HookBus:
        """The bus the gateway fires its hook events into."""
        ...
