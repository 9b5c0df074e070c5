"""Plugs hooks into the gateway: the registry behind `gateway.hooks`, the `agent:bootstrap` filter,
and the `hooks.*` RPC methods. Handlers are imported on their first event, never at install."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.hooks.bootstrap_hooks import BootstrapHooks
from claw.hooks.registry import HookRegistry

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway


def install(gateway: Gateway) -> None:
    from claw.hooks import methods as _methods  # noqa: F401 - registers hooks.list / hooks.enable / hooks.disable

    gateway.hooks.attach(HookRegistry(gateway.paths, gateway.config.hooks, gateway.workspace))
    if not any(isinstance(f, BootstrapHooks) for f in gateway.runner.bootstrap_filters):
        gateway.runner.bootstrap_filters.append(BootstrapHooks(gateway))


def registry_of(gateway: Gateway) -> HookRegistry:
    source = gateway.hooks.source
    if not isinstance(source, HookRegistry):
        raise RuntimeError("the hooks extension is not installed on this gateway")
    return source
