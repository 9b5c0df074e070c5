"""`Reconnector`: how a platform's long-lived connection — Discord's gateway, Slack's Socket Mode, DingTalk's
Stream, Feishu's long connection — is kept up, whatever its protocol.

Each attempt (`connect`) ends in a `Drop` saying why: the platform's own reasons are raised as one by the
protocol code; a network failure, a message gateway.db would not store (left unacknowledged, so the
platform sends it again) and a bug (logged with its traceback) become one here, so an account never dies
of them. A fatal drop — the platform refusing the credentials or the app, where retrying cannot help —
stops the account. Any other waits its backoff and connects again: `failures`, counted from the last
time the connection was up, picks the wait, which is never shorter than the platform asked for (`pause`).
Meanwhile the health says `reconnecting since …` with the last reason.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable

import aiohttp

from claw.channels.host import Health
from claw.errors import ClawError

log = logging.getLogger(__name__)

NETWORK_ERRORS: tuple[type[Exception], ...] = (aiohttp.ClientError, TimeoutError, OSError, ValueError)
"""What a connection that failed (not a bug) raises; `ValueError` covers a frame that is not JSON."""

Connect = Callable[[aiohttp.ClientSession], Awaitable[None]]
"""One connection, held until it ends by raising (a `Drop`, or whatever it failed of)."""


class Drop(Exception):
    """End this connection. `pause`: wait at least this long before the next (the platform said so);
    `fatal`: stop the account, retrying cannot help."""

    def __init__(self, reason: str, *, pause: float = 0.0, fatal: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.pause, self.fatal = reason, pause, fatal


def doubling(failures: int, cap: float, base: float = 1.0) -> float:
    """A wait from the upper half of `base · 2^failures` seconds, at most `cap`: doubling while attempts keep
    failing, jittered so that accounts dropped together do not come back together."""
    ceiling = min(cap, base * 2 ** min(failures, 16))
    return random.uniform(ceiling / 2, ceiling)


class Reconnector:
    """Keeps one account's connection up. `backoff(failures)` is the wait before the next attempt; a start
    whose first attempt fails counts `start_failures` (1: a start is not a blip that earns the quickest
    wait). `link` names the connection in the log, `stored` what gateway.db would not store, `failed`
    what counts as a failed connection (a platform whose frames are read by key adds `KeyError` …)."""

    def __init__(
        self, name: str, health: Health, backoff: Callable[[int], float], *, link: str, stored: str = "an event",
        failed: tuple[type[Exception], ...] = NETWORK_ERRORS, start_failures: int = 1,
        next_attempt: Callable[[], str] | None = None,
    ) -> None:  # fmt: skip
        self.name = name
        self.health = health
        self._backoff = backoff
        self._link = link
        self._stored = stored
        self._failed = failed
        self._failures = start_failures - 1
        self._down_since = time.time()
        self._next_attempt = next_attempt
        """What the next attempt will be (Discord: resume or a new session), for the log line."""

    async def run(self, connect: Connect) -> None:
        """Connect again after every drop, until cancelled or a drop is fatal (then return)."""
        async with aiohttp.ClientSession() as http:
            while True:
                stop = await self._attempt(connect, http)
                if stop.fatal:
                    self.health.error(stop.reason)
                    log.error("%s: %s; the account is stopped", self.name, stop.reason)
                    return
                await self._wait(stop)

    async def _attempt(self, connect: Connect, http: aiohttp.ClientSession) -> Drop:
        try:
            await connect(http)
        except Drop as drop:
            return drop
        except self._failed as exc:
            if stopping():
                raise  # being stopped: an error on the way out is no reason to reconnect
            return Drop(f"connection failed: {exc or type(exc).__name__}")
        except ClawError as exc:  # gateway.db refused a message: it stays unacknowledged, the platform resends
            return Drop(f"could not store {self._stored}: {exc}")
        except Exception as exc:  # a bug: keep the account alive, keep the traceback
            log.exception("%s: the %s failed", self.name, self._link)
            return Drop(f"internal error: {type(exc).__name__}")
        return Drop("connection closed")

    async def _wait(self, stop: Drop) -> None:
        if self.health.state == "running":  # it was up: count the outage and the backoff from now
            self._failures, self._down_since = 0, time.time()
        else:
            self._failures += 1
        wait = max(stop.pause, self._backoff(self._failures))
        self.health.error(stop.reason)
        self.health.state = "reconnecting"
        self.health.detail = f"reconnecting since {time.strftime('%H:%M:%S', time.localtime(self._down_since))}"
        note = f" ({self._next_attempt()})" if self._next_attempt is not None else ""
        log.info("%s: %s; reconnecting in %.1f s%s", self.name, stop.reason, wait, note)
        await asyncio.sleep(wait)


def stopping() -> bool:
    """The running task is being cancelled (the account is stopping)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
