"""The webhook platform's entry in composition's table of platforms (`claw.channels.platform`,
`CHANNEL_PLATFORMS` in claw/compose.py): one adapter per hook, and their `POST /hooks/<name>` route.
Its modules are imported on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.channels.platform import Platform

if TYPE_CHECKING:
    from claw.channels.adapter import ChannelAdapter
    from claw.channels.manager import ChannelManager
    from claw.config import Config
    from claw.gateway.capability import HttpRoute


def _adapters(config: Config, gateway_token: str | None) -> dict[str, ChannelAdapter]:
    """One adapter per hook; a hook whose secret is the gateway token is refused when it is built."""
    from claw.channels.webhook.adapter import WebhookAdapter

    settings = config.channels.webhook
    return {
        name: WebhookAdapter(name, hook, settings, gateway_token=gateway_token) for name, hook in settings.hooks.items()
    }


def _routes(manager: ChannelManager) -> tuple[HttpRoute, ...]:
    from claw.channels.ingress import Ingress
    from claw.gateway.capability import HttpRoute

    def limit() -> int:  # read per request, from the gateway's config
        return manager.config.channels.webhook.max_body_bytes

    return (HttpRoute("POST", "/hooks/{name}", Ingress(manager).route("webhook", "name", limit)),)


WEBHOOK = Platform("webhook", _adapters, routes=_routes)
