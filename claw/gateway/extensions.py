"""Capabilities beyond the core plug in here.

Each module listed in `EXTENSIONS` has `install(gateway)`, which adds that
capability's tools (`gateway.tools.register`), prompt sections (`gateway.runner.sections`),
run environment sources (`gateway.runner.env_sources`),
slash commands (`claw.gateway.commands.register`), RPC methods (`claw.gateway.methods.method`)
and, through `services(gateway)`, long-lived services; `routes(gateway)` may add HTTP routes
to the gateway server's port (`HttpRoute`s, mounted when the server starts). Adding a
capability is adding one line here, not editing the core.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway
    from claw.gateway.services import GatewayService

EXTENSIONS: tuple[str, ...] = (
    "claw.memory.extension",  # before skills: the prompt's memory section comes first
    "claw.agent.context_extension",
    "claw.skills.extension",
    "claw.gateway.server_methods",  # agent.follow, exec.approval.* (served in-process and over WebSocket)
    "claw.automations.extension",  # automations.* methods, the `automations` tool, the scheduler service
    "claw.subagents.extension",  # sessions_spawn/list/history/send, subagents.* methods, /subagents
    "claw.hooks.extension",  # lifecycle hooks behind gateway.hooks, the agent:bootstrap filter, hooks.* methods
    "claw.channels.extension",  # webhook + Telegram: inbox, outbox, pairing; channels.*/pairing.*/outbox.* methods
)


@dataclass(frozen=True, slots=True)
class HttpRoute:
    """An HTTP route an extension adds to the gateway server (an aiohttp handler). The server's Origin
    check and failed-auth limiter apply; authenticating the request (a signature, a secret header) is
    the handler's job, since such routes are for senders that do not hold the gateway token."""

    method: str
    path: str
    handler: Callable[[Any], Awaitable[Any]]


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


def http_routes(gateway: Gateway) -> list[HttpRoute]:
    """The HTTP routes every extension offers via `routes(gateway)`."""
    found: list[HttpRoute] = []
    for path in EXTENSIONS:
        offer = getattr(importlib.import_module(path), "routes", None)
        if offer is not None:
            found.extend(offer(gateway))
    return found
