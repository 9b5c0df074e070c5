"""Slack Socket Mode (no public URL): the gateway dials Slack instead of Slack POSTing to the gateway.

One connection at a time: `apps.connections.open` with the app-level token gives a WebSocket URL
(aiohttp), Slack's first frame is `hello`, then envelopes arrive (`{"envelope_id", "type", "payload"}`).
Each is handed to `handle`, which queues its message, in order, for the next inbox commit (a group
commit: a busy gateway.db does not slow reading), and is acknowledged (`{"envelope_id": …}`) only once
`committed` returned for it, that is once its message is in the inbox. An envelope not acknowledged —
the gateway died, the connection dropped first — is redelivered by Slack, and the inbox drops what it
already holds.

The connection is replaced when Slack sends `disconnect` (`refresh_requested` every few hours,
`warning`, `link_disabled`), when it closes, and when it falls silent: aiohttp pings after
`ping_interval` seconds without a frame and closes the link if no pong comes within half of that.
Every reconnect waits a backoff with jitter (`Reconnector`: doubling up to `max_backoff`, back to the start
once a connection has said hello), so nothing reconnects in a tight loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import aiohttp

from claw.channels.faults import fault
from claw.channels.host import Health
from claw.channels.reconnect import Drop, Reconnector, doubling
from claw.channels.slack.api import SlackError

log = logging.getLogger(__name__)

HELLO_TIMEOUT = 30.0
FATAL_ERRORS = {"invalid_auth": "the app-level token is invalid", "not_authed": "no app-level token",
                "not_allowed_token_type": "the token is not an app-level token (xapp-…) with connections:write",
                "account_inactive": "the app's token was revoked"}  # fmt: skip

Handle = Callable[[dict[str, Any]], Awaitable[None]]
"""An `events_api` envelope's payload → None once its message is queued; raising leaves it unacknowledged."""


class SocketMode:
    def __init__(
        self, open_url: Callable[[], Awaitable[str]], handle: Handle, committed: Callable[[], Awaitable[None]],
        health: Health, *, ping_interval: float = 10.0, max_backoff: float = 60.0,
    ) -> None:  # fmt: skip
        self._open_url = open_url
        self._handle = handle
        self._committed = committed
        """Returns once everything `handle` queued so far is committed."""
        self._unacked: list[str] = []
        self._acker: asyncio.Task[None] | None = None
        self.health = health
        self.ping_interval = ping_interval
        self.max_backoff = max_backoff
        self.connects = 0
        self.acks = 0

    async def run(self) -> None:
        """Stay connected until cancelled (or Slack refuses the token for good)."""
        backoff = partial(doubling, cap=self.max_backoff)
        await Reconnector("slack", self.health, backoff, link="Socket Mode connection").run(self._connection)

    async def _connection(self, http: aiohttp.ClientSession) -> None:
        try:
            url = await self._open_url()
        except SlackError as exc:
            fatal = FATAL_ERRORS.get(str(exc.code))
            raise Drop(f"apps.connections.open: {fatal or exc.description}", pause=exc.retry_after or 0.0,
                       fatal=fatal is not None) from None  # fmt: skip
        self.connects += 1
        async with http.ws_connect(url, heartbeat=self.ping_interval, autoping=True, max_msg_size=0) as ws:
            hello = _frame(await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT), ws)
            if hello.get("type") != "hello":
                raise Drop(f"expected hello, got {hello.get('type')!r}")
            self.health.ok()
            self.health.detail = "connected (socket mode)"
            self.health.last_poll_at = time.time()
            try:
                while True:
                    frame = _frame(await ws.receive(), ws)
                    self.health.last_poll_at = time.time()  # `claw channels status`: the last frame from Slack
                    await self._frame(ws, frame)
            finally:  # what is not acknowledged yet, Slack sends again on the next connection
                if self._acker is not None:
                    self._acker.cancel()
                self._unacked = []

    async def _frame(self, ws: aiohttp.ClientWebSocketResponse, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        if kind == "disconnect":
            reason = str(frame.get("reason") or "no reason")
            if reason == "link_disabled":
                raise Drop("Socket Mode was turned off for the app (api.slack.com → Socket Mode)", fatal=True)
            raise Drop(f"Slack asked to reconnect ({reason})")
        envelope_id = frame.get("envelope_id")
        if not isinstance(envelope_id, str):
            return
        payload = frame.get("payload")
        if kind == "events_api" and isinstance(payload, dict):
            await self._handle(payload)
        self._unacked.append(envelope_id)
        if self._acker is None or self._acker.done():
            self._acker = asyncio.create_task(self._ack_committed(ws), name="slack:acks")

    async def _ack_committed(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        """Acknowledge the envelopes whose messages are committed: those queued before each wait."""
        while self._unacked:
            ids, self._unacked = self._unacked, []
            await self._committed()
            fault("inbox.after_commit_before_ack")
            try:
                for envelope_id in ids:
                    await ws.send_json({"envelope_id": envelope_id})
                    self.acks += 1
            except (aiohttp.ClientError, ConnectionError, RuntimeError) as exc:  # the connection is going
                log.info("slack: %d acknowledgement(s) not sent (%s); Slack will redeliver", len(ids), exc)
                return


def _frame(message: aiohttp.WSMessage, ws: aiohttp.ClientWebSocketResponse) -> dict[str, Any]:
    if message.type == aiohttp.WSMsgType.TEXT:
        frame = json.loads(message.data)
        if isinstance(frame, dict):
            return frame
        raise Drop("a frame that is not a JSON object")
    if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED):
        problem = ws.exception()
        if isinstance(problem, aiohttp.ServerTimeoutError):
            raise Drop("the connection fell silent (no pong)")
        raise Drop(f"connection closed ({ws.close_code})")
    if message.type == aiohttp.WSMsgType.ERROR:
        if isinstance(message.data, aiohttp.ServerTimeoutError):
            raise Drop("the connection fell silent (no pong)")
        raise Drop(f"connection error: {message.data}")
    raise Drop(f"unexpected frame type {message.type}")
