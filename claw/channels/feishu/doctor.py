"""`claw doctor` for Feishu / Lark: each configured account's settings (offline), and, for a caller that goes
online, the platform's own word on them: a `tenant_access_token` fetched with the app's id and secret, and in
long-connection mode a connection URL from `callback/ws/endpoint` (which fails when the app console does not
have "use long connection to receive events" selected). No secret is ever shown."""

from __future__ import annotations

import asyncio

import aiohttp

from claw.channels.doctor_online import ask_accounts
from claw.channels.feishu.api import FeishuApi, FeishuError
from claw.channels.feishu.ws import FeishuLongConnection
from claw.channels.host import Health
from claw.channels.reconnect import Drop
from claw.finding import Finding, fail, ok, warn
from claw.settings.feishu import FeishuAccount, FeishuSettings

NAME = "feishu"


def check_config(settings: FeishuSettings) -> list[Finding]:
    """One finding per account: app id and secret present; in webhook mode, a way to verify requests."""
    if not settings.enabled:
        return []
    return [_offline(account_id, account) for account_id, account in settings.effective_accounts().items()]


def _offline(account_id: str, account: FeishuAccount) -> Finding:
    name = f"{NAME}/{account_id}"
    if not account.app_id:
        return fail(name, "no appId", "set appId to the app's App ID (cli_…) from the app console")
    if not account.secret():
        where = f"the environment variable {account.app_secret_env}" if account.app_secret_env else "appSecret"
        return fail(name, f"no app secret: {where} is empty", f"set {where} to the app's App Secret")
    if account.mode == "websocket":
        return ok(name, f"app {account.app_id}: long connection to {account.base_url()}")
    if not account.encrypt() and not account.token():
        return fail(name, "webhook mode without encryptKey or verificationToken: every event would be refused",
                    "set encryptKeyEnv (or verificationTokenEnv) from the app's Events & Callbacks page, or use "
                    'mode = "websocket"')  # fmt: skip
    if not account.encrypt():
        return warn(name, "webhook mode without an Encrypt Key: events arrive unsigned and in plain text",
                    "set an Encrypt Key in the app console and encryptKeyEnv here")  # fmt: skip
    return ok(name, f"app {account.app_id}: webhook at /feishu/{account_id}, events encrypted and signed")


async def online_check(account_id: str, account: FeishuAccount) -> Finding:
    """Online: the platform issues a tenant_access_token, and (long connection) a connection URL."""
    name = f"{NAME}/{account_id}"
    api = FeishuApi(account.base_url(), account.app_id or "", account.secret() or "", timeout=10.0)
    try:
        await api.tenant_token()
    except FeishuError as exc:
        fix = "copy App ID and App Secret again from the app console (Credentials & Basic Info)"
        return fail(name, f"no tenant_access_token: {exc.description}", fix)
    finally:
        await api.close()
    if account.mode != "websocket":
        return ok(name, "tenant_access_token issued")
    connection = FeishuLongConnection(account.base_url(), account.app_id or "", account.secret() or "",
                                      _no_events, Health())  # fmt: skip
    try:
        async with aiohttp.ClientSession() as http:
            await asyncio.wait_for(connection.endpoint(http), 10.0)
    except Drop as exc:
        fix = 'in the app console, Events & Callbacks: choose "use long connection to receive events"'
        return fail(name, f"tenant_access_token issued, but no long connection: {exc.reason}", fix)
    except (aiohttp.ClientError, TimeoutError, OSError) as exc:
        return fail(name, f"the long-connection endpoint did not answer: {exc or type(exc).__name__}",
                    "check the network and apiBaseUrl")  # fmt: skip
    return ok(name, "tenant_access_token issued; the long-connection endpoint offers a connection")


async def _no_events(_payload: bytes) -> int:
    return 200


def check_online(settings: FeishuSettings) -> list[Finding]:
    """`claw doctor --online`: every account with a secret asks the platform at once (the others are
    already failed by `check_config`)."""
    return ask_accounts(settings, lambda a: a.app_id and a.secret(), online_check)
