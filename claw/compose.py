"""Builds the gateway and its capabilities, in one place, in the order the prompt wants them.

Every entry point (`claw agent`, `claw chat`, `claw gateway run`, the server, tests) gets its gateway
from `build_gateway`; nothing registers itself on import. To add a capability: write an object with
the members of `claw.gateway.capability.Capability` (subclass `BaseCapability` and override what it
adds), construct it here with exactly what it needs, and put it in the `use(...)` call where its prompt
section belongs.

A capability that needs gateway operations declares them as its own host protocol (`SkillsHost`,
`SubagentsHost` …, built from the needs in `claw.gateway.host`) and is handed the gateway here, which
satisfies them all; it never sees the rest of the `Gateway`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from claw.api.broadcasts import Broadcasts
from claw.api.core import CORE_METHODS
from claw.automations.capability import AutomationsCapability
from claw.channels.capability import ChannelsCapability
from claw.gateway.context_commands import ContextCapability
from claw.gateway.gateway import Gateway
from claw.gateway.think_commands import ThinkCapability
from claw.hooks.capability import HooksCapability
from claw.mcp.capability import McpCapability
from claw.memory.capability import MemoryCapability
from claw.skills.capability import SkillsCapability
from claw.subagents.capability import SubagentsCapability
from claw.usage.capability import UsageCapability

if TYPE_CHECKING:
    from claw.config import Config
    from claw.gateway.services import GatewayService
    from claw.paths import Paths
    from claw.providers.failover import ModelRouter

Services = Sequence["GatewayService"] | Callable[[Gateway], Sequence["GatewayService"]]


def build_gateway(
    paths: Paths, config: Config, *, router: ModelRouter | None = None, services: Services = ()
) -> Gateway:
    """A gateway with every capability. `services`: what `start` starts (a one-shot turn starts none;
    `Gateway.capability_services` passes the capabilities' own: scheduler, channels)."""
    gateway = Gateway(paths, config, router=router, services=services, methods=CORE_METHODS, broadcasts=Broadcasts)
    channels = ChannelsCapability(gateway)
    gateway.use(
        MemoryCapability(paths, config),  # first: the prompt's memory section comes before the skills'
        ContextCapability(),
        ThinkCapability(),  # /think: the session's reasoning level (no prompt section)
        SkillsCapability(gateway),
        AutomationsCapability(gateway, deliver=channels.announce),  # a job's reply to a channel target
        SubagentsCapability(gateway),
        HooksCapability(gateway),
        channels,
        McpCapability(gateway),  # MCP servers' tools, offered as they come and go (a tool source)
        UsageCapability(gateway),  # no prompt section: it records and budgets every model call the router makes
    )
    return gateway
