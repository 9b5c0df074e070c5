"""`claw doctor` for DingTalk: each configured account's clientId and secret present (offline), and, for a
caller that goes online, an access token fetched with them (`POST /v1.0/oauth2/accessToken`: DingTalk's
own check that the key and secret belong together)."""

from __future__ import annotations

from claw.channels.dingtalk.api import DingTalkApi, DingTalkError
from claw.channels.doctor_online import ask_accounts
from claw.finding import Finding, fail, ok
from claw.settings.dingtalk import DingTalkAccount, DingTalkSettings

NAME = "dingtalk"


def check_credentials(settings: DingTalkSettings) -> list[Finding]:
    """One finding per account: its clientId and secret are set (the secret never shown), or what is missing."""
    if not settings.enabled:
        return []
    found = []
    for account_id, account in settings.effective_accounts().items():
        name = f"{NAME}/{account_id}"
        where = f"the environment variable {account.client_secret_env}" if account.client_secret_env else "clientSecret"
        if not account.secret():
            found.append(fail(name, f"no client secret: {where} is empty",
                              f"set {where} to the app's Client Secret (developer console → Credentials)"))  # fmt: skip
        else:
            mode = "stream mode" if account.mode == "stream" else f"http mode at /dingtalk/{account_id}"
            found.append(ok(name, f"clientId and client secret present ({mode})"))
    return found


async def token_test(account_id: str, account: DingTalkAccount) -> Finding:
    """Online: DingTalk issues an access token for the account's clientId and secret."""
    name = f"{NAME}/{account_id}"
    api = DingTalkApi(account.api_base_url, account.client_id or "", account.secret() or "", timeout=10.0)
    try:
        await api.access_token()
    except DingTalkError as exc:
        fix = "copy the Client ID and Client Secret again from the app's Credentials page"
        return fail(name, f"DingTalk refused the credentials: {exc.description}", fix)
    finally:
        await api.close()
    return ok(name, f"access token issued for {account.client_id}")


def check_online(settings: DingTalkSettings) -> list[Finding]:
    """`claw doctor --online`: every account that has its secret asks DingTalk at once (the missing ones
    are already failed by `check_credentials`)."""
    return ask_accounts(settings, lambda a: a.secret(), token_test)
