"""Plugs the channels into the gateway: the `channels.*`, `pairing.*` and `outbox.*` RPC methods, the
HTTP routes for inbound webhooks, and the `ChannelService` that long-lived gateways start."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

from claw.channels.manager import ChannelManager

if TYPE_CHECKING:
    from claw.gateway.extensions import HttpRoute
    from claw.gateway.gateway import Gateway
    from claw.gateway.services import GatewayService

_MANAGERS: weakref.WeakKeyDictionary[Gateway, ChannelManager] = weakref.WeakKeyDictionary()


def manager_for(gateway: Gateway) -> ChannelManager:
    """The gateway's channel manager, created on first use (gateway.db opens only when needed)."""
    found = _MANAGERS.get(gateway)
    if found is None:
        found = ChannelManager(gateway)
        _MANAGERS[gateway] = found
        weakref.finalize(gateway, found.close)
    return found


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
