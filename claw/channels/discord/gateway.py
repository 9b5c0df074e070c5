"""The Discord gateway connection (WebSocket, API v10, JSON), written against the documented protocol:

Hello (op 10) → heartbeats (op 1) every `heartbeat_interval`, the first after a random fraction of it →
Identify (op 2, with the intents) or, when a session is known, Resume (op 6, session id and the last
sequence number handled) at the session's `resume_gateway_url`. Ready keeps `session_id` and
`resume_gateway_url`; every dispatch's `s` is the sequence number, taken as handled only once the
handler returned (a message is in the inbox), so a Resume replays whatever was not.

A heartbeat sent while the previous one was never acknowledged (op 11) means the connection is dead
("zombied"): it is closed with a non-1000 code and resumed. Reconnect (op 7) resumes; Invalid Session
(op 9) resumes when `d` is true, else starts a new session, after 1–5 s as documented. Close codes
4004 and 4010–4014 (bad token, intents not allowed) stop the account: retrying cannot help. Every
reconnect waits a backoff with jitter (`Reconnector`: doubling up to `max_backoff`, reset once a session is
ready), so nothing reconnects in a tight loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import aiohttp

from claw.channels.host import Health
from claw.channels.reconnect import NETWORK_ERRORS, Drop, Reconnector, doubling

log = logging.getLogger(__name__)

GUILDS, GUILD_MESSAGES, DIRECT_MESSAGES, MESSAGE_CONTENT = 1 << 0, 1 << 9, 1 << 12, 1 << 15
INTENTS = GUILDS | GUILD_MESSAGES | DIRECT_MESSAGES | MESSAGE_CONTENT
FATAL_CLOSE = {4004: "authentication failed", 4010: "invalid shard", 4011: "sharding required",
               4012: "invalid API version", 4013: "invalid intents", 4014: "disallowed intents (enable the "
               "Message Content intent in the Developer Portal)"}  # fmt: skip
NEW_SESSION_CLOSE = (4007, 4009)  # invalid seq, session timed out: Resume cannot work
HELLO_TIMEOUT = 30.0

Dispatch = Callable[[str, Any, int], Awaitable[None]]
"""(event name, data, sequence number) → None once handled; raising drops the connection unhandled."""


@dataclass
class GatewaySession:
    session_id: str | None = None
    resume_url: str | None = None
    seq: int | None = None


class _Drop(Drop):
    """End this connection; `resume`: keep the session and Resume, else start a new one."""

    def __init__(self, reason: str, *, resume: bool = True, pause: float = 0.0, fatal: bool = False) -> None:
        super().__init__(reason, pause=pause, fatal=fatal)
        self.resume = resume


class DiscordGateway:
    def __init__(
        self, url: str, token: str, dispatch: Dispatch, health: Health, *, session: GatewaySession | None = None,
        max_backoff: float = 60.0, on_session: Callable[[GatewaySession], Awaitable[None]] | None = None,
    ) -> None:  # fmt: skip
        self.url = url.rstrip("/")
        self._token = token
        self._dispatch = dispatch
        self._on_session = on_session
        self.health = health
        self.session = session or GatewaySession()
        self.max_backoff = max_backoff
        self.user: dict[str, Any] | None = None
        """The bot's own user object, from Ready."""
        self.connects = 0
        self.identifies = 0
        self.resumes = 0
        self._acked = True
        self._ws: aiohttp.ClientWebSocketResponse | None = None

    async def run(self) -> None:
        """Connect and stay connected until cancelled (or a fatal close code)."""
        reconnector = Reconnector(
            "discord", self.health, partial(doubling, cap=self.max_backoff),
            link="gateway connection", failed=(*NETWORK_ERRORS, KeyError, TypeError),
            next_attempt=lambda: "resume" if self.session.session_id else "new session",
        )  # fmt: skip
        await reconnector.run(self._connect)

    async def _connect(self, http: aiohttp.ClientSession) -> None:
        try:
            await self._connection(http)
        except _Drop as drop:
            if not drop.resume:
                self.session = GatewaySession()
            raise

    async def _connection(self, http: aiohttp.ClientSession) -> None:
        resuming = self.session.session_id is not None and self.session.seq is not None
        base = (self.session.resume_url or self.url) if resuming else self.url
        self.connects += 1
        async with http.ws_connect(f"{base.rstrip('/')}/?v=10&encoding=json", autoping=True, max_msg_size=0) as ws:
            self._ws, self._acked = ws, True
            hello = await asyncio.wait_for(ws.receive(), HELLO_TIMEOUT)
            frame = _frame(hello)
            if frame.get("op") != 10:
                raise _Drop(f"expected Hello, got op {frame.get('op')}")
            interval = float(frame["d"]["heartbeat_interval"]) / 1000.0
            await self._hello_back(ws, resuming)
            beat = asyncio.create_task(self._heartbeat(ws, interval))
            reader = asyncio.create_task(self._read(ws))
            try:
                await asyncio.wait({beat, reader}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (beat, reader):
                    task.cancel()
                await asyncio.wait({beat, reader})  # never raises their errors over a cancellation
                self._ws = None
            if not reader.cancelled() and reader.exception() is not None:
                raise reader.exception()  # type: ignore[misc]
            if not beat.cancelled() and beat.exception() is None and beat.result():  # a heartbeat went unanswered
                await ws.close(code=4000, message=b"zombied")  # not 1000/1001: the session stays resumable
                raise _Drop("no heartbeat ACK: the connection was dead")
            code = ws.close_code
        if code in FATAL_CLOSE:
            raise _Drop(f"closed by Discord: {code} {FATAL_CLOSE[code]}", fatal=True)
        raise _Drop(f"connection closed ({code})", resume=code not in NEW_SESSION_CLOSE)

    async def _hello_back(self, ws: aiohttp.ClientWebSocketResponse, resuming: bool) -> None:
        if resuming:
            self.resumes += 1
            s = self.session
            await ws.send_json({"op": 6, "d": {"token": self._token, "session_id": s.session_id, "seq": s.seq}})
        else:
            self.identifies += 1
            props = {"os": "linux", "browser": "claw", "device": "claw"}
            await ws.send_json({"op": 2, "d": {"token": self._token, "intents": INTENTS, "properties": props}})

    async def _heartbeat(self, ws: aiohttp.ClientWebSocketResponse, interval: float) -> bool:
        """Beat until cancelled; True when a beat went unacknowledged (the connection is dead)."""
        await asyncio.sleep(interval * random.random())  # the first one jittered, as documented
        while not ws.closed:
            if not self._acked:
                log.warning("discord: heartbeat not acknowledged; closing the dead connection to resume")
                return True
            self._acked = False
            await ws.send_json({"op": 1, "d": self.session.seq})
            await asyncio.sleep(interval)
        return False

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for message in ws:
            await self._handle(ws, _frame(message))

    async def _handle(self, ws: aiohttp.ClientWebSocketResponse, frame: dict[str, Any]) -> None:
        op = frame.get("op")
        if op == 11:
            self._acked = True
            self.health.last_poll_at = time.time()  # `claw channels status`: "last poll" is the last ACK
        elif op == 1:  # Discord asks for a heartbeat now
            await ws.send_json({"op": 1, "d": self.session.seq})
        elif op == 7:
            raise _Drop("Discord asked to reconnect (op 7)")
        elif op == 9:
            raise _Drop("invalid session (op 9)", resume=frame.get("d") is True, pause=random.uniform(1.0, 5.0))
        elif op == 0:
            await self._dispatched(str(frame.get("t")), frame.get("d"), frame.get("s"))

    async def _dispatched(self, event: str, data: Any, seq: Any) -> None:
        if event == "READY" and isinstance(data, dict):
            self.session = GatewaySession(data.get("session_id"), data.get("resume_gateway_url"), None)
            self.user = data.get("user") if isinstance(data.get("user"), dict) else None
        if event in ("READY", "RESUMED"):
            self.health.ok()
            self.health.detail = "connected" + (f" as {self.user.get('username')}" if self.user else "")
        await self._dispatch(event, data, seq if isinstance(seq, int) else -1)
        if isinstance(seq, int):
            self.session.seq = seq
        if event == "READY" and self._on_session is not None:
            await self._on_session(self.session)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()


def _frame(message: aiohttp.WSMessage) -> dict[str, Any]:
    if message.type == aiohttp.WSMsgType.TEXT:
        frame = json.loads(message.data)
        if isinstance(frame, dict):
            return frame
        raise _Drop("a gateway frame that is not a JSON object")
    if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSING, aiohttp.WSMsgType.CLOSED):
        raise _Drop(f"connection closed ({message.data})", resume=message.data not in NEW_SESSION_CLOSE)
    if message.type == aiohttp.WSMsgType.ERROR:
        raise _Drop(f"connection error: {message.data}")
    raise _Drop(f"unexpected frame type {message.type}")
