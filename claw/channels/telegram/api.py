"""A small Telegram Bot API client on aiohttp: `call(method, params)` → `result`, or `TelegramError`.

The bot token is part of every URL (`<base>/bot<token>/<method>`), so no URL ever reaches an
error message or a log line: errors name the method and Telegram's own description only.
"""

from __future__ import annotations

import logging
from typing import Any

from claw.channels.platform_error import PlatformError
from claw.channels.platform_http import PlatformHttp

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 30.0


class TelegramError(PlatformError):
    """A failed Bot API call, named by its method; `code` is not used (Telegram's `error_code` repeats the
    HTTP status), and its rate limit is the plain `429` with `parameters.retry_after`."""


class TelegramApi:
    def __init__(self, base_url: str, token: str, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._base = f"{base_url.rstrip('/')}/bot{token}"
        self._http = PlatformHttp(TelegramError, timeout)

    async def call(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = None) -> Any:
        answer = await self._http.request("POST", f"{self._base}/{method}", method, json=params or {}, timeout=timeout)
        status, body = answer.status, answer.json()
        if status == 200 and isinstance(body, dict) and body.get("ok") is True:
            return body.get("result")
        description = str(body.get("description") or f"HTTP {status}") if isinstance(body, dict) else f"HTTP {status}"
        retry_after = None
        if isinstance(body, dict) and isinstance(body.get("parameters"), dict):
            value = body["parameters"].get("retry_after")
            retry_after = float(value) if isinstance(value, int | float) else None
        raise TelegramError(method, description, status=status, retry_after=retry_after)

    async def close(self) -> None:
        await self._http.close()
