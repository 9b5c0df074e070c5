"""Automations as a capability: the `automations.*` RPC methods, the owner-only `automations` tool, and
the scheduler service that long-lived gateways (`claw gateway run`, `claw chat`) start."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from claw.gateway.capability import BaseCapability, HttpRoute

if TYPE_CHECKING:
    from claw.automations.executor import Deliver
    from claw.automations.host import AutomationsHost
    from claw.automations.manager import AutomationManager
    from claw.channels.platform import Platform
    from claw.gateway.capability import Method
    from claw.gateway.services import GatewayService
    from claw.tools.base import Tool


class AutomationsCapability(BaseCapability):
    """Scheduled jobs. `deliver` sends a job's reply to a channel target (the channels capability's);
    `platforms` (composition's table of channel platforms) judge such a target when a job is added."""

    name = "automations"
    method_namespaces = ("automations.", "cron.")  # cron.*: OpenClaw's names for the same jobs

    def __init__(self, host: AutomationsHost, platforms: Sequence[Platform], deliver: Deliver | None = None) -> None:
        self._host = host
        self._deliver = deliver
        self._platforms = platforms

    @cached_property
    def manager(self) -> AutomationManager:
        """Built on first use (a one-shot turn that schedules nothing imports none of it); gateway.db opens
        only when the manager first needs it."""
        from claw.automations.manager import AutomationManager

        return AutomationManager(self._host, self._platforms, self._deliver)

    def tools(self) -> Sequence[Tool]:
        from claw.automations.tool import AutomationsTool

        return (AutomationsTool(lambda: self.manager),)

    def methods(self) -> Mapping[str, Method]:
        from claw.automations.cron_methods import cron_methods
        from claw.automations.methods import automation_methods  # on first use: see claw.gateway.method_table

        return {**automation_methods(self.manager), **cron_methods(self.manager)}

    def routes(self) -> Sequence[HttpRoute]:
        """Event triggers: `POST /automations/webhook/<name>` (signed) and `/automations/gmail` (Pub/Sub push)."""
        from claw.automations.ingress import EventIngress

        ingress = EventIngress(lambda: self.manager)
        return (
            HttpRoute("POST", "/automations/webhook/{name}", ingress.webhook),
            HttpRoute("POST", "/automations/gmail", ingress.gmail),
        )

    def services(self) -> Sequence[GatewayService]:
        from claw.automations.scheduler import Scheduler

        return (Scheduler(self.manager),)

    def close(self) -> None:
        if "manager" in self.__dict__:  # never built: nothing to close
            self.manager.close()
