"""`claw doctor` for Discord: each configured account's bot token present (offline), and, for a caller that
goes online, `GET /users/@me` with it (Discord's own check that the token is a bot's and valid)."""

from __future__ import annotations

from claw.channels.discord.rest import DiscordError, DiscordRest
from claw.channels.doctor_online import ask_accounts
from claw.finding import Finding, fail, ok
from claw.settings.discord import DiscordAccount, DiscordSettings

NAME = "discord"


def check_tokens(settings: DiscordSettings) -> list[Finding]:
    """One finding per account: its token is set (never shown), or where it should come from."""
    if not settings.enabled:
        return []
    found = []
    for account_id, account in settings.effective_accounts().items():
        name = f"{NAME}/{account_id}"
        if account.token():
            found.append(ok(name, "bot token present"))
        else:
            where = f"the environment variable {account.bot_token_env}" if account.bot_token_env else "botToken"
            found.append(fail(name, f"no bot token: {where} is empty", f"set {where} to the bot's token"))
    return found


async def auth_test(account_id: str, account: DiscordAccount) -> Finding:
    """Online: the token is accepted by Discord (`GET /users/@me`) and belongs to a bot."""
    name = f"{NAME}/{account_id}"
    rest = DiscordRest(account.api_base_url, account.token() or "", timeout=10.0)
    try:
        me = await rest.request("GET", "/users/@me")
    except DiscordError as exc:
        fix = "reset the token in the Developer Portal (Bot → Reset Token) and set it again"
        return fail(name, f"Discord refused the token: {exc.description}", fix)
    finally:
        await rest.close()
    if not isinstance(me, dict) or not me.get("bot"):
        return fail(name, "the token is not a bot's", "use the token from the application's Bot page")
    return ok(name, f"authenticated as {me.get('username')} ({me.get('id')})")


def check_online(settings: DiscordSettings) -> list[Finding]:
    """`claw doctor --online`: every account that has a token asks Discord at once (the missing ones are
    already failed by `check_tokens`)."""
    return ask_accounts(settings, lambda a: a.token(), auth_test)
