"""Hooks as a capability: the registry behind `gateway.hooks`, the `agent:bootstrap` filter, and the
`hooks.*` RPC methods. Handlers are imported on their first event, never when the gateway is built."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from claw.gateway.capability import BaseCapability
from claw.hooks.bootstrap_hooks import BootstrapHooks
from claw.hooks.methods import hook_methods
from claw.hooks.registry import HookRegistry

if TYPE_CHECKING:
    from claw.agent.bootstrap import BootstrapFilter
    from claw.gateway.capability import Method
    from claw.gateway.gateway import Gateway


class HooksCapability(BaseCapability):
    name = "hooks"

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.registry = HookRegistry(gateway.paths, gateway.config.hooks, gateway.workspace)
        gateway.hooks.attach(self.registry)  # the core fires its events into this gateway's hook bus

    def bootstrap_filters(self) -> Sequence[BootstrapFilter]:
        return (BootstrapHooks(self.gateway),)

    def methods(self) -> Mapping[str, Method]:
        return hook_methods(self.registry)
