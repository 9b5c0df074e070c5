"""`PlatformHttp`: the one aiohttp request every platform's REST client makes, with its failures already in the
terms the outbox decides on.

Each client (Telegram, Discord, Feishu, DingTalk) reads its own platform's answer — its envelope, its error
codes, its rate limits — but the transport is the same: one session per client, opened on first use inside
the running loop; a connection that could not be made is `sent=False` (safe to resend), a timeout or a
broken connection may have reached the platform; a body that should be JSON and is not names the status.
The URL never reaches an error (Telegram's holds the token): errors name only `what` the caller gave.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp

from claw.channels.platform_error import PlatformError

E = TypeVar("E", bound=PlatformError)
_REFUSE: Any = object()


def transport_error(error: type[E], what: str, exc: aiohttp.ClientError | TimeoutError) -> E:
    """A request that got no answer, as the client's error: `sent` is False only when no connection was made.
    (Slack's client, on the SDK's own session, maps its failures with this too.)"""
    if isinstance(exc, aiohttp.ClientConnectorError):
        return error(what, f"cannot connect: {exc.os_error or type(exc).__name__}", sent=False)
    if isinstance(exc, TimeoutError):
        return error(what, "timed out")
    return error(what, f"connection failed: {type(exc).__name__}")


@dataclass(frozen=True, slots=True)
class Answer:
    """What the platform answered, whatever its status; `json()` reads the body."""

    what: str
    status: int
    headers: Mapping[str, str]
    text: str
    error: type[PlatformError]

    def json(self, *, empty: Any = _REFUSE) -> Any:
        """The body as JSON; an empty body is `empty` when one is given, else (like any body that is not JSON)
        the client's error with the status."""
        if not self.text and empty is not _REFUSE:
            return empty
        try:
            return json.loads(self.text)
        except ValueError:
            message = f"HTTP {self.status} with a body that is not JSON"
            raise self.error(self.what, message, status=self.status) from None


class PlatformHttp:
    """One client's session and its request; `error` is the client's `PlatformError` subclass."""

    def __init__(self, error: type[PlatformError], timeout: float) -> None:
        self._error = error
        self._timeout = timeout
        self._session: aiohttp.ClientSession | None = None

    async def request(
        self, method: str, url: str, what: str, *, json: Any = None, headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> Answer:  # fmt: skip
        """One request, `timeout` seconds at most (the client's default when None); a failure to get an
        answer raises the client's error, any answer is returned."""
        if self._session is None:
            self._session = aiohttp.ClientSession()
        limit = aiohttp.ClientTimeout(total=timeout or self._timeout)
        try:
            async with self._session.request(method, url, json=json, headers=headers, timeout=limit) as response:
                return Answer(what, response.status, response.headers, await response.text(), self._error)
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise transport_error(self._error, what, exc) from None

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
