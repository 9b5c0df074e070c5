"""`claw doctor` for Slack: each configured account's tokens present (offline) — the bot token, and the
signing secret (Events API) or the app-level token (Socket Mode) — and, online, `auth.test` with the bot
token (Slack's own check that the token is valid, and whose it is)."""

from __future__ import annotations

from claw.channels.doctor_online import ask_accounts
from claw.channels.slack.api import SlackApi, SlackError
from claw.finding import Finding, fail, ok
from claw.settings.slack import SlackAccount, SlackSettings

NAME = "slack"


def check_tokens(settings: SlackSettings) -> list[Finding]:
    """One finding per account: what its mode needs is set (never shown), or where it should come from."""
    if not settings.enabled:
        return []
    found = []
    for account_id, account in settings.effective_accounts().items():
        missing = _missing(account)
        name = f"{NAME}/{account_id}"
        if missing:
            where = " and ".join(missing)
            found.append(fail(name, f"{account.mode} mode: {where} empty", f"set {where} (see docs/channels/slack.md)"))
        else:
            needs = "signing secret" if account.mode == "events" else "app-level token"
            found.append(ok(name, f"{account.mode} mode: bot token and {needs} present"))
    return found


def _missing(account: SlackAccount) -> list[str]:
    """The secrets this account's mode needs and does not have, by where they should come from."""
    need = [("botToken", account.bot_token_env, account.token())]
    if account.mode == "events":
        need.append(("signingSecret", account.signing_secret_env, account.signing_key()))
    else:
        need.append(("appToken", account.app_token_env, account.app_level_token()))
    return [f"the environment variable {env}" if env else key for key, env, value in need if not value]


async def auth_test(account_id: str, account: SlackAccount) -> Finding:
    """Online: Slack accepts the bot token (`auth.test`), and it is a bot's."""
    name = f"{NAME}/{account_id}"
    api = SlackApi(account.base_url(), account.token() or "", timeout=10.0)
    try:
        me = await api.auth_test()
    except SlackError as exc:
        fix = "reinstall the app (OAuth & Permissions) and set the Bot User OAuth Token (xoxb-…) again"
        return fail(name, f"Slack refused the bot token: {exc.description}", fix)
    finally:
        await api.close()
    if not me.get("bot_id"):
        return fail(name, "the token is not a bot token", "use the Bot User OAuth Token (xoxb-…)")
    return ok(name, f"authenticated as {me.get('user')} ({me.get('user_id')}) in {me.get('team')}")


def check_online(settings: SlackSettings) -> list[Finding]:
    """`claw doctor --online`: every account that has a bot token asks Slack at once (the missing ones are
    already failed by `check_tokens`)."""
    return ask_accounts(settings, lambda a: a.token(), auth_test)
