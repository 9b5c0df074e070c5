"""The Slack Web API calls claw makes, on `slack_sdk`'s `AsyncWebClient` (the official SDK, on aiohttp).

The client gets the account's `apiBaseUrl` (so tests talk to a fake Slack on loopback) and no retry
handlers: a `429` / `ratelimited` answer is not waited out here but raised as `SlackError` with its
`Retry-After`, and the outbox (for replies) or the caller's backoff (for everything else) waits. Every
failure is one `SlackError` that says whether the request may have reached Slack (`sent`), which is
what decides whether the outbox may resend. Tokens travel in the `Authorization` header only (the
SDK's doing) and never appear in an error.
"""

from __future__ import annotations

from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from claw.channels.platform_error import PlatformError
from claw.channels.platform_http import transport_error

DEFAULT_TIMEOUT = 30.0


class SlackError(PlatformError):
    """A failed Web API call, named by its method. `code` is Slack's own error (`invalid_auth`, `ratelimited`,
    …) when Slack answered one; `description` is that error, or what went wrong."""

    @property
    def rate_limited(self) -> bool:
        return self.status == 429 or self.code == "ratelimited"


class SlackApi:
    def __init__(self, base_url: str, token: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._base = base_url.rstrip("/") + "/"
        self._token = token
        self._timeout = timeout
        self._session: aiohttp.ClientSession | None = None
        self._client: AsyncWebClient | None = None

    def _web(self) -> AsyncWebClient:
        """Built on first use, inside the running loop (the aiohttp session belongs to it)."""
        if self._client is None:
            self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=self._timeout))
            self._client = AsyncWebClient(
                token=self._token, base_url=self._base, timeout=int(self._timeout), session=self._session,
                retry_handlers=[],
            )  # fmt: skip
        return self._client

    async def auth_test(self) -> dict[str, Any]:
        return await self._call("auth.test", lambda web: web.auth_test())

    async def post_message(self, channel: str, text: str, thread_ts: str | None = None) -> dict[str, Any]:
        return await self._call(
            "chat.postMessage",
            lambda web: web.chat_postMessage(channel=channel, text=text, thread_ts=thread_ts, mrkdwn=True,
                                             unfurl_links=False, unfurl_media=False),
        )  # fmt: skip

    async def update_message(self, channel: str, ts: str, text: str) -> dict[str, Any]:
        return await self._call("chat.update", lambda web: web.chat_update(channel=channel, ts=ts, text=text))

    async def user_info(self, user: str) -> dict[str, Any]:
        return await self._call("users.info", lambda web: web.users_info(user=user))

    async def connections_open(self, app_token: str) -> str:
        """Socket Mode: a fresh WebSocket URL, asked for with the app-level token (not the bot token)."""
        found = await self._call("apps.connections.open", lambda web: web.apps_connections_open(app_token=app_token))
        url = found.get("url")
        if not isinstance(url, str) or not url.startswith(("ws://", "wss://")):
            raise SlackError("apps.connections.open", "the answer has no WebSocket url")
        return url

    async def _call(self, method: str, request: Any) -> dict[str, Any]:
        try:
            response = await request(self._web())
        except SlackApiError as exc:
            raise _api_error(method, exc) from None
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise transport_error(SlackError, method, exc) from None
        data = response.data
        return data if isinstance(data, dict) else {}

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
            self._client = None


def _api_error(method: str, exc: SlackApiError) -> SlackError:
    response = exc.response
    data = response.data if isinstance(response.data, dict) else {}
    status = int(response.status_code)
    code = str(data["error"]) if data.get("error") else None
    retry_after = None
    if status == 429 or code == "ratelimited":
        try:
            retry_after = max(0.0, float(response.headers.get("Retry-After") or 1.0))
        except (TypeError, ValueError):
            retry_after = 1.0
    return SlackError(method, code or f"HTTP {status}", code=code, status=status, retry_after=retry_after)
