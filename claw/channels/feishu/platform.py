"""The Feishu / Lark platform in composition's table (`claw.channels.platform`, `CHANNEL_PLATFORMS` in
claw/compose.py): its apps, their `POST /feishu/<account>` route and doctor checks. Its modules are
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
    from claw.channels.feishu.adapter import FeishuAdapter

    settings = config.channels.feishu
    if not settings.enabled:
        return {}
    return {
        account_id: FeishuAdapter(account_id, account) for account_id, account in settings.effective_accounts().items()
    }


def _routes(manager: ChannelManager) -> tuple[HttpRoute, ...]:
    from claw.channels.feishu.http_route import receive
    from claw.channels.platform_ingress import route
    from claw.gateway.capability import HttpRoute

    return (HttpRoute("POST", "/feishu/{account}", route(manager, "feishu", receive)),)


def _check(config: Config) -> list[Finding]:
    from claw.channels.feishu.doctor import check_config

    return check_config(config.channels.feishu)


def _check_online(config: Config) -> list[Finding]:
    from claw.channels.feishu.doctor import check_online

    return check_online(config.channels.feishu)


FEISHU = Platform("feishu", _adapters, routes=_routes, check=_check, check_online=_check_online)
