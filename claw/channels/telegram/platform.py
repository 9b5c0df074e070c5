"""The Telegram platform's entry in composition's table of platforms (`claw.channels.platform`,
`CHANNEL_PLATFORMS` in claw/compose.py): its bots and their `POST /telegram/<account>` route (webhook mode).
Its modules are imported on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.channels.platform import Platform

if TYPE_CHECKING:
    from claw.channels.adapter import ChannelAdapter
    from claw.channels.manager import ChannelManager
    from claw.config import Config
    from claw.gateway.capability import HttpRoute

MAX_BODY = 1024 * 1024
"""The largest update Telegram may POST in webhook mode."""


def _adapters(config: Config, gateway_token: str | None) -> dict[str, ChannelAdapter]:
    from claw.channels.telegram.adapter import TelegramAdapter

    settings = config.channels.telegram
    if not settings.enabled:
        return {}
    return {
        account_id: TelegramAdapter(account_id, account)
        for account_id, account in settings.effective_accounts().items()
    }


def _routes(manager: ChannelManager) -> tuple[HttpRoute, ...]:
    from claw.channels.ingress import Ingress
    from claw.gateway.capability import HttpRoute

    return (HttpRoute("POST", "/telegram/{account}", Ingress(manager).route("telegram", "account", lambda: MAX_BODY)),)


TELEGRAM = Platform("telegram", _adapters, routes=_routes)
