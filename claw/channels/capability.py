"""The channels as a capability: the `channels.*`, `pairing.*` and `outbox.*` RPC methods, the HTTP
routes for inbound webhooks, and the `ChannelService` that long-lived gateways start; `announce` queues
a message the gateway starts itself (an automation's reply) for a channel target. The platforms, their
adapters and their routes come from the table composition hands it (`claw.channels.platform`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property, partial
from typing import TYPE_CHECKING

from claw.gateway.capability import BaseCapability, HttpRoute

if TYPE_CHECKING:
    from claw.channels.gateway_host import ChannelsHost
    from claw.channels.manager import ChannelManager
    from claw.channels.platform import Platform
    from claw.gateway.capability import Method
    from claw.gateway.services import GatewayService


class ChannelsCapability(BaseCapability):
    name = "channels"
    method_namespaces = ("channels.", "outbox.", "pairing.", "message.")  # message.action: OpenClaw's send

    def __init__(self, host: ChannelsHost, platforms: Sequence[Platform]) -> None:
        self._host = host
        self._platforms = platforms

    @cached_property
    def manager(self) -> ChannelManager:
        """Built on first use: a one-shot turn neither receives nor sends on a channel. gateway.db opens
        only when the manager first needs it."""
        from claw.channels.manager import ChannelManager
        from claw.channels.platform import build_adapters

        return ChannelManager(self._host, partial(build_adapters, self._platforms))

    def methods(self) -> Mapping[str, Method]:
        from claw.channels.methods import channel_methods  # on first use: see claw.gateway.method_table

        return channel_methods(self.manager)

    def services(self) -> Sequence[GatewayService]:
        from claw.channels.service import ChannelService

        return (ChannelService(self.manager),)

    def routes(self) -> Sequence[HttpRoute]:
        return tuple(route for p in self._platforms if p.routes is not None for route in p.routes(self.manager))

    async def announce(self, channel: str, target: str, text: str, run_id: str) -> int | None:
        """Queue `text` for `<channel>:<target>` (see `claw.channels.announce`)."""
        from claw.channels.announce import queue_announcement

        return await queue_announcement(self.manager, channel, target, text, run_id=run_id)

    def close(self) -> None:
        if "manager" in self.__dict__:  # never built: nothing to close
            self.manager.close()
