"""Capabilities beyond the core plug in here.

Each module listed in `EXTENSIONS` has `install(gateway)`, which adds that
capability's tools (`gateway.tools.register`), prompt sections (`gateway.runner.sections`),
slash commands (`claw.gateway.commands.register`), RPC methods (`claw.gateway.methods.method`)
and, through `services(gateway)`, long-lived services. Adding a capability is
adding one line here, not editing the core.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway
    from claw.gateway.services import GatewayService

EXTENSIONS: tuple[str, ...] = (
    "claw.memory.extension",  # before skills: the prompt's memory section comes first
    "claw.agent.context_extension",
    "claw.skills.extension",
    "claw.gateway.server_methods",  # agent.follow, exec.approval.* (served in-process and over WebSocket)
    "claw.automations.extension",  # automations.* methods, the `automations` tool, the scheduler service
)


def install_all(gateway: Gateway) -> None:
    for path in EXTENSIONS:
        importlib.import_module(path).install(gateway)


def default_services(gateway: Gateway) -> list[GatewayService]:
    """The services a long-lived gateway runs: those each extension offers via `services(gateway)`."""
    found: list[GatewayService] = []
    for path in EXTENSIONS:
        module = importlib.import_module(path)
        offer = getattr(module, "services", None)
        if offer is not None:
            found.extend(offer(gateway))
    return found
