"""The channels as a capability: the `channels.*`, `pairing.*` and `outbox.*` RPC methods, the HTTP
routes for inbound webhooks, and the `ChannelService` that long-lived gateways start; `announce` queues
a message the gateway starts itself (an automation's reply) for a channel target."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from claw.gateway.capability import BaseCapability, HttpRoute

if TYPE_CHECKING:
    from claw.channels.gateway_host import ChannelsHost
    from claw.channels.manager import ChannelManager
    from claw.gateway.capability import Method
    from claw.gateway.services import GatewayService


class ChannelsCapability(BaseCapability):
    name = "channels"
    method_namespaces = ("channels.", "outbox.", "pairing.", "message.")  # message.action: OpenClaw's send

    def __init__(self, host: ChannelsHost) -> None:
        self._host = host

    @cached_property
    def manager(self) -> ChannelManager:
        """Built on first use: a one-shot turn neither receives nor sends on a channel. gateway.db opens
        only when the manager first needs it."""
        from claw.channels.manager import ChannelManager

        return ChannelManager(self._host)

    def methods(self) -> Mapping[str, Method]:
        from claw.channels.methods import channel_methods  # on first use: see claw.gateway.method_table

        return channel_methods(self.manager)

    def services(self) -> Sequence[GatewayService]:
        from claw.channels.service import ChannelService

        return (ChannelService(self.manager),)

    def routes(self) -> Sequence[HttpRoute]:
        from claw.channels import dingtalk_http, feishu_http, slack_http
        from claw.channels.ingress import Ingress
        from claw.channels.platform_ingress import route

        ingress = Ingress(self.manager)
        return (
            HttpRoute("POST", "/hooks/{name}", ingress.webhook),
            HttpRoute("POST", "/telegram/{account}", ingress.telegram),
            HttpRoute("POST", "/feishu/{account}", route(self.manager, "feishu", feishu_http.receive)),
            HttpRoute("POST", "/dingtalk/{account}", route(self.manager, "dingtalk", dingtalk_http.receive)),
            HttpRoute("POST", "/slack/{account}", route(self.manager, "slack", slack_http.receive)),
        )

    async def announce(self, channel: str, target: str, text: str, run_id: str) -> int | None:
        """Queue `text` for `<channel>:<target>` (see `claw.channels.announce`)."""
        from claw.channels.announce import queue_announcement

        return await queue_announcement(self.manager, channel, target, text, run_id=run_id)

    def close(self) -> None:
        if "manager" in self.__dict__:  # never built: nothing to close
            self.manager.close()
