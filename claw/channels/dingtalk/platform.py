"""The DingTalk platform in composition's table (`claw.channels.platform`, `CHANNEL_PLATFORMS` in
claw/compose.py): its robots, their `POST /dingtalk/<account>` route and doctor checks. Its modules are
imported on first use."""

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
    from claw.channels.dingtalk.adapter import DingTalkAdapter

    settings = config.channels.dingtalk
    if not settings.enabled:
        return {}
    return {
        account_id: DingTalkAdapter(account_id, account)
        for account_id, account in settings.effective_accounts().items()
    }


def _routes(manager: ChannelManager) -> tuple[HttpRoute, ...]:
    from claw.channels.dingtalk.http_route import receive
    from claw.channels.platform_ingress import route
    from claw.gateway.capability import HttpRoute

    return (HttpRoute("POST", "/dingtalk/{account}", route(manager, "dingtalk", receive)),)


def _check(config: Config) -> list[Finding]:
    from claw.channels.dingtalk.doctor import check_credentials

    return check_credentials(config.channels.dingtalk)


def _check_online(config: Config) -> list[Finding]:
    from claw.channels.dingtalk.doctor import check_online

    return check_online(config.channels.dingtalk)


DINGTALK = Platform("dingtalk", _adapters, routes=_routes, check=_check, check_online=_check_online)
