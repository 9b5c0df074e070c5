"""`Platform`: what the rest of claw knows of one chat platform — its name, its adapters built from config,
its HTTP routes and its `claw doctor` checks.

Composition lists the platforms (`CHANNEL_PLATFORMS` in claw/compose.py); the channel manager builds its
adapters from that table, the channels capability its routes, and `claw doctor` runs its checks, so nothing
outside a platform's own package (claw/channels/<name>/) names it. Each package declares its entry in its
`platform.py`, importing adapter, route and checks only when they are first used: reading the table costs
nothing, and a one-shot turn that never touches a channel never imports a platform's code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from claw.channels.adapter import ChannelAdapter
    from claw.channels.manager import ChannelManager
    from claw.config import Config
    from claw.finding import Finding
    from claw.gateway.capability import HttpRoute

Adapters = Callable[["Config", "str | None"], Mapping[str, "ChannelAdapter"]]
"""(config, the gateway token or None) → the platform's adapters by account id: none when it is switched off."""
Routes = Callable[["ChannelManager"], Sequence["HttpRoute"]]
Check = Callable[["Config"], "list[Finding]"]


@dataclass(frozen=True, slots=True)
class Platform:
    """One chat platform, as composition lists it."""

    name: str
    """Its `[channels.<name>]` section, and the `channel` of its adapters, messages and outbox rows."""
    adapters: Adapters
    routes: Routes | None = None
    """The HTTP routes it receives on, on the gateway's port (none: it only dials out)."""
    check: Check | None = None
    """`claw doctor`: what the config alone says of each account (one finding per account)."""
    check_online: Check | None = None
    """`claw doctor --online`: what the platform says of each account."""


def build_adapters(
    platforms: Sequence[Platform], config: Config, gateway_token: str | None = None
) -> dict[tuple[str, str], ChannelAdapter]:
    """(channel, account) → adapter, for every configured account of every platform (nothing connects)."""
    return {
        (platform.name, account_id): adapter
        for platform in platforms
        for account_id, adapter in platform.adapters(config, gateway_token).items()
    }
