"""A small Feishu/Lark open-platform client on aiohttp: `call(method, path, body)` → `data`, or `FeishuError`.

Every call carries a `tenant_access_token`, fetched from `auth/v3/tenant_access_token/internal`,
cached, and renewed `refresh_margin` seconds before it expires; when the platform still says the
token is invalid or expired (it can be revoked early), the token is fetched again and the call
made once more. The app secret and the token never appear in an error message.
"""

from __future__ import annotations

from typing import Any

from claw.channels.app_token import AppToken
from claw.channels.platform_error import PlatformError
from claw.channels.platform_http import PlatformHttp

DEFAULT_TIMEOUT = 30.0
TOKEN_CODES = frozenset({99991661, 99991663, 99991668})
"""Missing, invalid and expired tenant_access_token."""
RATE_LIMIT_CODES = frozenset({99991400, 230020})
"""The platform's frequency limit, and the per-chat message-rate limit."""


class FeishuError(PlatformError):
    """A failed Feishu call; `code` is the platform's integer error code."""

    @property
    def rate_limited(self) -> bool:
        return self.code in RATE_LIMIT_CODES or self.status == 429


class FeishuApi:
    def __init__(self, base_url: str, app_id: str, app_secret: str, *, refresh_margin: float = 300.0,
                 timeout: float = DEFAULT_TIMEOUT) -> None:  # fmt: skip
        self._base = f"{base_url.rstrip('/')}/open-apis"
        self._app = {"app_id": app_id, "app_secret": app_secret}
        self._http = PlatformHttp(FeishuError, timeout)
        self._token = AppToken(self._fetch_token, refresh_margin)

    async def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        token = await self._token.get()
        try:
            return await self._request(method, path, body, token)
        except FeishuError as exc:
            if exc.code not in TOKEN_CODES:
                raise
        return await self._request(method, path, body, await self._token.get(stale=token))

    async def tenant_token(self) -> str:
        """The current tenant_access_token (fetched when there is none or it is about to expire)."""
        return await self._token.get()

    async def _fetch_token(self) -> tuple[str, float]:
        data = await self._request("POST", "auth/v3/tenant_access_token/internal", self._app, None)
        token = data.get("tenant_access_token") if isinstance(data, dict) else None
        if not isinstance(token, str) or not token:
            raise FeishuError("tenant_access_token", "unexpected answer (no token)")
        return token, float(data.get("expire") or 7200)

    async def _request(self, method: str, path: str, body: dict[str, Any] | None, token: str | None) -> Any:
        what = path.split("?")[0]
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = await self._http.request(method, f"{self._base}/{path}", what, json=body, headers=headers)
        status, found = answer.status, answer.json()
        code = found.get("code") if isinstance(found, dict) else None
        if status == 200 and code == 0:
            return found.get("data", found)  # the token endpoint answers at the top level
        msg = str(found.get("msg") or f"HTTP {status}") if isinstance(found, dict) else f"HTTP {status}"
        reset = answer.headers.get("x-ogw-ratelimit-reset")
        retry = float(reset) if reset and reset.isdigit() else None
        raise FeishuError(what, f"code {code}: {msg}", code=code if isinstance(code, int) else None, status=status,
                          retry_after=retry)  # fmt: skip

    async def close(self) -> None:
        await self._http.close()
