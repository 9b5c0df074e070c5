"""Hooks as a capability: the registry that tells the gateway's hook bus which handlers run, the
`agent:bootstrap` filter, and the `hooks.*` RPC methods. Handlers are imported on their first event,
never when the gateway is built."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from claw.gateway.capability import BaseCapability
from claw.hooks.bootstrap_hooks import BootstrapHooks
from claw.hooks.registry import HookRegistry

if TYPE_CHECKING:
    from claw.agent.bootstrap import BootstrapFilter
    from claw.gateway.capability import Method
    from claw.hooks.host import HooksHost


class HooksCapability(BaseCapability):
    name = "hooks"
    method_namespaces = ("hooks.",)

    def __init__(self, host: HooksHost) -> None:
        self.host = host
        self.registry = HookRegistry(host.paths, host.config.hooks, host.workspace)
        host.hooks.attach(self.registry)  # the gateway fires its events into its hook bus; these say who runs

    def bootstrap_filters(self) -> Sequence[BootstrapFilter]:
        return (BootstrapHooks(self.host.hooks, self.host.paths.data_dir),)

    def methods(self) -> Mapping[str, Method]:
        from claw.hooks.methods import hook_methods  # on first use: see claw.gateway.method_table

        return hook_methods(self.registry, self.host)
