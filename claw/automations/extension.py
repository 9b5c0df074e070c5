"""Plugs automations into the gateway: the `automations.*` RPC methods, the owner-only `automations`
tool, and the scheduler service that long-lived gateways (`claw gateway run`, `claw chat`) start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.automations.manager import AutomationManager
from claw.gateway.per_gateway import PerGateway

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway
    from claw.gateway.services import GatewayService

manager_for = PerGateway(AutomationManager, AutomationManager.close)
"""The gateway's automation manager, created on first use (gateway.db opens only when needed)."""


def install(gateway: Gateway) -> None:
    from claw.automations import methods as _methods  # noqa: F401 - registers automations.*
    from claw.automations.tool import AutomationsTool

    manager = manager_for(gateway)
    if gateway.tools.get(AutomationsTool.name) is None:
        gateway.tools.register(AutomationsTool(manager))


def services(gateway: Gateway) -> list[GatewayService]:
    from claw.automations.scheduler import Scheduler

    return [Scheduler(manager_for(gateway))]
