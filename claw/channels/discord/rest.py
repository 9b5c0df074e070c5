"""A small Discord REST client on aiohttp (written against the documented HTTP API, no discord.py), with the
documented rate limits honoured before Discord has to refuse anything:

- per-route buckets: each answer's `X-RateLimit-Bucket` / `-Remaining` / `-Reset-After` is remembered for
  its route (method, path template, and the major parameter: the channel id); a request to a bucket with
  nothing remaining waits until it resets;
- `429`: `retry_after` (seconds, from the JSON body, else the `Retry-After` header) is waited out and the
  request made again, up to `max_wait` in all; longer than that it fails with `retry_after` set, so the
  outbox schedules the retry instead;
- the global limit: a `429` with `global: true` (or `X-RateLimit-Global`) holds every request of this bot
  for `retry_after`, and requests are spaced to at most `GLOBAL_PER_SECOND`.

The token travels in the `Authorization: Bot …` header only, never in a URL, an error or a log line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from dataclasses import dataclass
from typing import Any

from claw.channels.platform_error import PlatformError
from claw.channels.platform_http import Answer, PlatformHttp

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 30.0
GLOBAL_PER_SECOND = 50.0
MAX_INLINE_WAIT = 10.0
USER_AGENT = "DiscordBot (https://github.com/claw/claw, 0.1)"
_MAJOR = re.compile(r"^/(channels|guilds|webhooks)/(\d+)")
_ID = re.compile(r"/\d+")


class DiscordError(PlatformError):
    """A failed request, named by its route key; `code` is Discord's JSON error code (`50007`: cannot DM the
    user, …), and `retry_after` is set for a 429 longer than the client waits itself."""


@dataclass
class _Bucket:
    remaining: int = 1
    reset_at: float = 0.0
    lock: asyncio.Lock | None = None


def route_key(method: str, path: str) -> str:
    """`POST /channels/123/messages/456` → `POST /channels/123/messages/{id}`: the major parameter (the
    channel, guild or webhook) stays, the minor ids become a placeholder, as Discord's buckets count them."""
    major = _MAJOR.match(path)
    head = major.group(0) if major else ""
    return f"{method} {head}{_ID.sub('/{id}', path[len(head) :])}"


class DiscordRest:
    def __init__(
        self, base_url: str, token: str, *, timeout: float = DEFAULT_TIMEOUT, max_wait: float = MAX_INLINE_WAIT
    ) -> None:
        self._base = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bot {token}", "User-Agent": USER_AGENT}
        self._http = PlatformHttp(DiscordError, timeout)
        self._max_wait = max_wait
        self._bucket_of: dict[str, str] = {}
        """Route key → Discord's bucket hash (several routes may share one bucket)."""
        self._buckets: dict[str, _Bucket] = {}
        self._global_until = 0.0
        self._next_slot = 0.0
        self.waited: list[tuple[str, float]] = []
        """(route, seconds) for each rate-limit wait, newest last: what `claw channels status` and tests see."""

    async def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        route = route_key(method, path)
        waited = 0.0
        while True:
            bucket = self._bucket(route)
            assert bucket.lock is not None
            async with bucket.lock:  # one request per bucket at a time: `remaining` stays true
                waited += await self._wait_turn(route, bucket)
                answer = await self._http.request(
                    method, f"{self._base}{path}", route, json=body, headers=self._headers
                )
                self._learn(route, bucket, answer.status, answer.headers)
            if answer.status != 429:
                return _answer(answer)
            retry_after, is_global = _retry_after(answer.headers, answer.text)
            if is_global:
                self._global_until = time.monotonic() + retry_after
            if waited + retry_after > self._max_wait:
                raise DiscordError(route, "rate limited", status=429, retry_after=retry_after)
            log.info("discord: %s rate limited for %.2f s%s", route, retry_after, " (global)" if is_global else "")
            self.waited.append((route, retry_after))
            await asyncio.sleep(retry_after)
            waited += retry_after

    async def close(self) -> None:
        await self._http.close()

    def _bucket(self, route: str) -> _Bucket:
        key = self._bucket_of.get(route, route)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(lock=asyncio.Lock())
        return bucket

    async def _wait_turn(self, route: str, bucket: _Bucket) -> float:
        """Sleep while the bucket is empty, the global limit holds, or the global spacing says so; looked at
        again after each sleep (a global 429 may have arrived meanwhile). Returns the seconds held by limits."""
        held = 0.0
        spaced = False
        while True:
            now = time.monotonic()
            until = max(self._global_until, bucket.reset_at if bucket.remaining <= 0 else 0.0)
            slot = max(now, until)
            if not spaced:  # one place in the global spacing per request
                slot = max(slot, self._next_slot)
                self._next_slot = slot + 1.0 / GLOBAL_PER_SECOND
                spaced = True
            if slot <= now:
                return held
            if until > now:
                self.waited.append((route, until - now))
                held += until - now
            await asyncio.sleep(slot - now)

    def _learn(self, route: str, bucket: _Bucket, status: int, headers: Any) -> None:
        name = headers.get("X-RateLimit-Bucket")
        if name and self._bucket_of.get(route) != name:
            major = _MAJOR.match(route.split(" ", 1)[1])
            key = f"{name}:{major.group(2) if major else ''}"
            self._bucket_of[route] = key
            self._buckets.setdefault(key, bucket)
            bucket = self._buckets[key]
        remaining, reset_after = headers.get("X-RateLimit-Remaining"), headers.get("X-RateLimit-Reset-After")
        try:
            if remaining is not None:
                bucket.remaining = int(remaining)
            if reset_after is not None:
                bucket.reset_at = time.monotonic() + float(reset_after)
        except ValueError:
            pass
        if status == 429 and headers.get("X-RateLimit-Scope") != "shared" and remaining is None:
            bucket.remaining = 0


def _answer(answer: Answer) -> Any:
    status, body = answer.status, answer.json(empty=None)
    if 200 <= status < 300:
        return body
    message = str(body.get("message") or f"HTTP {status}") if isinstance(body, dict) else f"HTTP {status}"
    code = body.get("code") if isinstance(body, dict) and isinstance(body.get("code"), int) else None
    raise DiscordError(answer.what, message, status=status, code=code)


def _retry_after(headers: Any, text: str) -> tuple[float, bool]:
    """(seconds, global?) of a 429: the body's `retry_after` (seconds, may be fractional), else the header."""
    try:
        body = json.loads(text)
    except ValueError:
        body = {}
    value = body.get("retry_after") if isinstance(body, dict) else None
    if not isinstance(value, int | float):
        try:
            value = float(headers.get("Retry-After") or 1.0)
        except ValueError:
            value = 1.0
    is_global = bool(isinstance(body, dict) and body.get("global")) or headers.get("X-RateLimit-Global") == "true"
    return max(0.0, float(value)), is_global
