"""The Discord platform in composition's table (`claw.channels.platform`, `CHANNEL_PLATFORMS` in
claw/compose.py): its bots, which dial out (no route), and their doctor checks. Its modules are imported
on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.channels.platform import Platform

if TYPE_CHECKING:
    from claw.channels.adapter import ChannelAdapter
    from claw.config import Config
    from claw.finding import Finding


def _adapters(config: Config, gateway_token: str | None) -> dict[str, ChannelAdapter]:
    from claw.channels.discord.adapter import DiscordAdapter

    settings = config.channels.discord
    if not settings.enabled:
        return {}
    return {
        account_id: DiscordAdapter(account_id, account) for account_id, account in settings.effective_accounts().items()
    }


def _check(config: Config) -> list[Finding]:
    from claw.channels.discord.doctor import check_tokens

    return check_tokens(config.channels.discord)


def _check_online(config: Config) -> list[Finding]:
    from claw.channels.discord.doctor import check_online

    return check_online(config.channels.discord)


DISCORD = Platform("discord", _adapters, check=_check, check_online=_check_online)
