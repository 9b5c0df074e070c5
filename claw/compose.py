"""Builds the gateway and its capabilities, in one place, in the order the prompt wants them.

Every entry point (`claw agent`, `claw chat`, `claw gateway run`, the server, tests) gets its gateway
from `build_gateway`; nothing registers itself on import. To add a capability: write an object with
the members of `claw.gateway.capability.Capability` (subclass `BaseCapability` and override what it
adds), construct it here with exactly what it needs, and put it in the `use(...)` call where its prompt
section belongs.

The chat platforms are a table too (`CHANNEL_PLATFORMS`): each is a package `claw/channels/<name>/`
whose `platform.py` declares its adapters, routes and `claw doctor` checks; to add one, write that
package and list it here. The channels capability builds adapters and routes from the table, the
automations capability judges delivery targets with it, and `claw doctor` runs its checks.

A capability that needs gateway operations declares them as its own host protocol (`SkillsHost`,
`SubagentsHost` …, built from the needs in `claw.gateway.host`) and is handed the gateway here, which
satisfies them all; it never sees the rest of the `Gateway`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from claw.channels.dingtalk.platform import DINGTALK
from claw.channels.discord.platform import DISCORD
from claw.channels.feishu.platform import FEISHU
from claw.channels.platform import Platform
from claw.channels.slack.platform import SLACK
from claw.channels.telegram.platform import TELEGRAM
from claw.channels.webhook.platform import WEBHOOK

if TYPE_CHECKING:
    from claw.config import Config
    from claw.gateway.gateway import Gateway
    from claw.gateway.services import GatewayService
    from claw.paths import Paths
    from claw.providers.failover import ModelRouter

Services = Sequence["GatewayService"] | Callable[["Gateway"], Sequence["GatewayService"]]

CHANNEL_PLATFORMS: tuple[Platform, ...] = (WEBHOOK, TELEGRAM, DISCORD, FEISHU, DINGTALK, SLACK)
"""The chat platforms, in the order their adapters, routes and doctor checks come."""


def build_gateway(
    paths: Paths, config: Config, *, router: ModelRouter | None = None, services: Services = ()
) -> Gateway:
    """A gateway with every capability. `services`: what `start` starts (a one-shot turn starts none;
    `Gateway.capability_services` passes the capabilities' own: scheduler, channels)."""
    # Imported here, not at the top: the CLI reads CHANNEL_PLATFORMS (`claw doctor`, `claw automations add`
    # without a gateway) and must not pay for the gateway and every capability to do so.
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

    gateway = Gateway(paths, config, router=router, services=services, methods=CORE_METHODS, broadcasts=Broadcasts)
    channels = ChannelsCapability(gateway, CHANNEL_PLATFORMS)
    gateway.use(
        MemoryCapability(paths, config),  # first: the prompt's memory section comes before the skills'
        ContextCapability(),
        ThinkCapability(),  # /think: the session's reasoning level (no prompt section)
        SkillsCapability(gateway),
        AutomationsCapability(gateway, CHANNEL_PLATFORMS, deliver=channels.announce),  # replies to channel targets
        SubagentsCapability(gateway),
        HooksCapability(gateway),
        channels,
        McpCapability(gateway),  # MCP servers' tools, offered as they come and go (a tool source)
        UsageCapability(gateway),  # no prompt section: it records and budgets every model call the router makes
    )
    return gateway
