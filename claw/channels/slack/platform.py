"""The Slack platform in composition's table (`claw.channels.platform`, `CHANNEL_PLATFORMS` in
claw/compose.py): its apps, their `POST /slack/<account>` route (the Events API) and doctor checks. Its
modules are imported on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.channels.platform import Platform

if TYPE_CHECKING:
    from claw.channels.adapter import ChannelAdapter
    from claw.channels.manager import ChannelManager
    from claw.config import Config
    from claw.finding import Finding
    from claw.gateway.capability import HttpRoute


def _adapters(config: Config, gateway_token: str | None) -> dict[str, ChannelAdapter]:
    from claw.channels.slack.adapter import SlackAdapter

    settings = config.channels.slack
    if not settings.enabled:
        return {}
    return {
        account_id: SlackAdapter(account_id, account) for account_id, account in settings.effective_accounts().items()
    }


def _routes(manager: ChannelManager) -> tuple[HttpRoute, ...]:
    from claw.channels.platform_ingress import route
    from claw.channels.slack.http_route import receive
    from claw.gateway.capability import HttpRoute

    return (HttpRoute("POST", "/slack/{account}", route(manager, "slack", receive)),)


def _check(config: Config) -> list[Finding]:
    from claw.channels.slack.doctor import check_tokens

    return check_tokens(config.channels.slack)


def _check_online(config: Config) -> list[Finding]:
    from claw.channels.slack.doctor import check_online

    return check_online(config.channels.slack)


SLACK = Platform("slack", _adapters, routes=_routes, check=_check, check_online=_check_online)
