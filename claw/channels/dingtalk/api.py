"""A small DingTalk open-platform client on aiohttp: the robot's OpenAPI, its session webhooks, and the
Stream gateway's `connections/open`.

OpenAPI calls (`/v1.0/...`) carry `x-acs-dingtalk-access-token`, fetched from `/v1.0/oauth2/accessToken`
with the app's key and secret, cached, and renewed `refresh_margin` seconds before it expires; when
DingTalk still answers 401 (a token revoked early), it is fetched again and the call made once more.
A message's `sessionWebhook` needs no token (the URL is the credential, for as long as it is valid)
and answers in the older `errcode` style. The secret and the tokens never appear in an error.
"""

from __future__ import annotations

from typing import Any

from claw.channels.app_token import AppToken
from claw.channels.platform_error import PlatformError
from claw.channels.platform_http import PlatformHttp

DEFAULT_TIMEOUT = 30.0
RATE_LIMIT_CODES = ("Throttling", "QpsLimit", "FlowControl")
"""Substrings of the OpenAPI's error codes for its frequency limits (`Forbidden.AccessDenied.QpsLimitForApi` …)."""
WEBHOOK_RATE_LIMIT = frozenset({130101, 90018, 90006, 90005, 88})
"""The errcodes for "sending too fast" (per robot, per app key, per organisation)."""
ROBOT_TOPIC = "/v1.0/im/bot/messages/get"


class DingTalkError(PlatformError):
    """A failed DingTalk call; `code` is a string for the OpenAPI, an int for session webhooks."""

    @property
    def rate_limited(self) -> bool:
        if self.status == 429:
            return True
        if isinstance(self.code, int):
            return self.code in WEBHOOK_RATE_LIMIT
        return self.code is not None and any(part in self.code for part in RATE_LIMIT_CODES)


class DingTalkApi:
    def __init__(self, base_url: str, app_key: str, app_secret: str, *, refresh_margin: float = 300.0,
                 timeout: float = DEFAULT_TIMEOUT) -> None:  # fmt: skip
        self.base = base_url.rstrip("/")
        self._app = {"appKey": app_key, "appSecret": app_secret}
        self._http = PlatformHttp(DingTalkError, timeout)
        self._token = AppToken(self._fetch_token, refresh_margin)

    async def call(self, path: str, body: dict[str, Any], method: str = "POST") -> Any:
        """An OpenAPI call with the access token; its JSON answer."""
        token = await self._token.get()
        try:
            return await self._openapi(path, body, token, method)
        except DingTalkError as exc:
            if exc.status != 401:
                raise
        return await self._openapi(path, body, await self._token.get(stale=token), method)

    async def access_token(self) -> str:
        """The current access token (fetched when there is none or it is about to expire)."""
        return await self._token.get()

    async def _fetch_token(self) -> tuple[str, float]:
        data = await self._openapi("v1.0/oauth2/accessToken", self._app, None)
        token = data.get("accessToken") if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise DingTalkError("accessToken", "unexpected answer (no accessToken)")
        return token, float(data.get("expireIn") or 7200)

    async def open_connection(self, client_id: str, client_secret: str) -> tuple[str, str]:
        """Stream mode: ask for a WebSocket endpoint and its one-time ticket, subscribed to robot messages."""
        body = {"clientId": client_id, "clientSecret": client_secret, "ua": "claw",
                "subscriptions": [{"type": "CALLBACK", "topic": ROBOT_TOPIC}]}  # fmt: skip
        data = await self._openapi("v1.0/gateway/connections/open", body, None)
        endpoint = data.get("endpoint") if isinstance(data, dict) else None
        ticket = data.get("ticket") if isinstance(data, dict) else None
        if not isinstance(endpoint, str) or not isinstance(ticket, str) or not endpoint or not ticket:
            raise DingTalkError("connections/open", "unexpected answer (no endpoint or ticket)")
        return endpoint, ticket

    async def webhook(self, url: str, body: dict[str, Any]) -> None:
        """POST to a message's `sessionWebhook`; `DingTalkError` unless it answers errcode 0."""
        status, answer = await self._post(url, body, {}, "sessionWebhook")
        code = answer.get("errcode") if isinstance(answer, dict) else None
        if status == 200 and code == 0:
            return
        msg = str(answer.get("errmsg") or f"HTTP {status}") if isinstance(answer, dict) else f"HTTP {status}"
        raise DingTalkError("sessionWebhook", f"errcode {code}: {msg}", status=status,
                            code=code if isinstance(code, int) else None)  # fmt: skip

    async def _openapi(self, path: str, body: dict[str, Any], token: str | None, method: str = "POST") -> Any:
        name = "/".join(path.split("/")[-2:])
        headers = {"x-acs-dingtalk-access-token": token} if token else {}
        status, answer = await self._post(f"{self.base}/{path}", body, headers, name, method)
        if 200 <= status < 300:
            return answer
        code = answer.get("code") if isinstance(answer, dict) else None
        msg = str(answer.get("message") or f"HTTP {status}") if isinstance(answer, dict) else f"HTTP {status}"
        raise DingTalkError(name, f"HTTP {status} {code or ''}: {msg}".replace("  ", " "), status=status,
                            code=str(code) if code is not None else None)  # fmt: skip

    async def _post(self, url: str, body: dict[str, Any], headers: dict[str, str], what: str,
                    method: str = "POST") -> tuple[int, Any]:  # fmt: skip
        answer = await self._http.request(method, url, what, json=body, headers=headers)
        return answer.status, answer.json(empty={})

    async def close(self) -> None:
        await self._http.close()
