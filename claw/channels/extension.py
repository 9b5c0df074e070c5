"""Plugs the channels into the gateway: the `channels.*`, `pairing.*` and `outbox.*` RPC methods, the
HTTP routes for inbound webhooks, and the `ChannelService` that long-lived gateways start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.channels.manager import ChannelManager
from claw.gateway.per_gateway import PerGateway

if TYPE_CHECKING:
    from claw.gateway.extensions import HttpRoute
    from claw.gateway.gateway import Gateway
    from claw.gateway.services import GatewayService

manager_for = PerGateway(ChannelManager, ChannelManager.close)
"""The gateway's channel manager, created on first use (gateway.db opens only when needed)."""


def install(gateway: Gateway) -> None:
    from claw.channels import methods as _methods  # noqa: F401 - registers channels.*, pairing.*, outbox.*

    manager_for(gateway)


def services(gateway: Gateway) -> list[GatewayService]:
    from claw.channels.service import ChannelService

    return [ChannelService(manager_for(gateway))]


def routes(gateway: Gateway) -> list[HttpRoute]:
    from claw.channels.ingress import Ingress
    from claw.gateway.extensions import HttpRoute

    ingress = Ingress(manager_for(gateway))
    return [
        HttpRoute("POST", "/hooks/{name}", ingress.webhook),
        HttpRoute("POST", "/telegram/{account}", ingress.telegram),
    ]
