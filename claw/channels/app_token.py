"""`AppToken`: an app's access token for a platform's API (Feishu's tenant_access_token, DingTalk's
accessToken), fetched with the app's own credentials.

It is cached and renewed `margin` seconds before it expires, so a call never carries one that dies on
the way. The platform may still refuse it (a token revoked early): the client then asks for a fresh one
with `get(stale=…)`, which fetches anew unless another call already replaced that token. One fetch at a
time: calls that find the token expiring together wait for the same fetch.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

Fetch = Callable[[], Awaitable[tuple[str, float]]]
"""Ask the platform for a token → (the token, the seconds it lives); the client's error when it will not."""


class AppToken:
    def __init__(self, fetch: Fetch, margin: float) -> None:
        self._fetch = fetch
        self._margin = margin
        self._token: str | None = None
        self._expires_at = 0.0
        self._lock = asyncio.Lock()

    async def get(self, stale: str | None = None) -> str:
        """The current token; a new one when there is none, it is about to expire, or it is `stale`."""
        async with self._lock:
            fresh = self._token is not None and self._token != stale
            if fresh and self._token and time.monotonic() < self._expires_at - self._margin:
                return self._token
            token, lifetime = await self._fetch()
            self._token, self._expires_at = token, time.monotonic() + lifetime
            return token
