"""Feishu's long connection ("use long connection to receive events"): the event channel lark-oapi's ws client speaks.

1. `POST {base}/callback/ws/endpoint` with `{AppID, AppSecret}` → `{code, data: {URL, ClientConfig}}`.
   Code 0 is an endpoint; 1 (busy) and 1000040343 (internal error) are worth retrying; any other
   code is the platform refusing the app (wrong secret, long connection not enabled …) and stops
   the account, as retrying cannot help. `ClientConfig` carries `PingInterval`, `ReconnectInterval`
   and `ReconnectNonce` in seconds (a pong may bring a new one).
2. A WebSocket to `URL`, whose query names the `device_id` and `service_id`. A refused upgrade says
   why in `handshake-status` / `handshake-msg` headers: 403, or 514 with `handshake-autherrcode`
   1000040350 (too many connections), are the app's problem and stop the account.
3. Binary `pbbp2.Frame`s (`frame`). Every `PingInterval` the client sends a control frame of
   type `ping` for its service; the server answers `pong`. Data frames of type `event` carry the v2
   event JSON (unencrypted), split into `sum` parts (`seq` 0…sum-1, one `message_id`) when large.
   The handler runs once the parts are joined; only after it returned — the event committed to the
   inbox — is the frame sent back with `biz_rt` (ms) and the payload `{"code": 200}`, the ack. An
   event never acked is pushed again by the platform, and dropped as a duplicate in the inbox.

Reconnects wait a random part of `ReconnectNonce` (so many clients do not return at once), then
a jittered backoff doubling from one second up to `ReconnectInterval` while attempts keep failing,
never under half a second. `ReconnectCount` is not honoured: a personal gateway should come back
whenever the network does, so it keeps trying at the ceiling. A connection that hears nothing for
three ping intervals is taken as dead and replaced.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import aiohttp

from claw.channels.feishu.frame import CONTROL, DATA, Frame, FrameError
from claw.channels.host import Health
from claw.channels.reconnect import Drop, Reconnector, doubling

log = logging.getLogger(__name__)

ENDPOINT_PATH = "/callback/ws/endpoint"
RETRY_CODES = frozenset({1, 1000040343})
FATAL_HANDSHAKE, AUTH_FAILED, EXCEED_CONN_LIMIT = 403, 514, 1000040350
MIN_WAIT = 0.5
FRAGMENT_TTL = 10.0
MAX_PENDING_FRAGMENTS = 64
SILENT_PINGS = 3
CONNECT_TIMEOUT = 30.0

EventHandler = Callable[[bytes], Awaitable[int]]
"""The event JSON → the code to ack with (200 once it is committed); raising leaves it unacked."""


@dataclass
class ClientConfig:
    ping_interval: float = 120.0
    reconnect_interval: float = 120.0
    reconnect_nonce: float = 30.0
    reconnect_count: int = -1

    def update(self, raw: Any) -> None:
        """Take the server's `ClientConfig` (keys it omits keep their value)."""
        if not isinstance(raw, dict):
            return
        for key, attr in (("PingInterval", "ping_interval"), ("ReconnectInterval", "reconnect_interval"),
                          ("ReconnectNonce", "reconnect_nonce")):  # fmt: skip
            value = raw.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
                setattr(self, attr, float(value))
        if isinstance(raw.get("ReconnectCount"), int):
            self.reconnect_count = raw["ReconnectCount"]


class FeishuLongConnection:
    def __init__(self, base_url: str, app_id: str, app_secret: str, on_event: EventHandler, health: Health) -> None:
        self._endpoint_url = base_url.rstrip("/") + ENDPOINT_PATH
        self._credentials = {"AppID": app_id, "AppSecret": app_secret}
        self._on_event = on_event
        self.health = health
        self.config = ClientConfig()
        self.connects = 0
        self._heard = 0.0
        self._parts: dict[str, tuple[float, list[bytes | None]]] = {}
        self._ws: aiohttp.ClientWebSocketResponse | None = None

    async def run(self) -> None:
        """Stay connected until cancelled, or until the platform refuses the app."""
        reconnector = Reconnector("feishu", self.health, self.backoff, link="long connection", start_failures=0)
        await reconnector.run(self._connect)
        self.health.detail = "long connection stopped"

    async def _connect(self, http: aiohttp.ClientSession) -> None:
        await self._connection(http, await self.endpoint(http))

    def backoff(self, failures: int) -> float:
        """The wait before attempt `failures + 1` of an outage: a random part of the nonce first (spreading
        the clients of a restarted server), then doubling with jitter, capped at `ReconnectInterval`."""
        c = self.config
        if failures == 0:
            return max(MIN_WAIT, random.uniform(0, c.reconnect_nonce))
        return max(MIN_WAIT, doubling(failures - 1, c.reconnect_interval))

    async def endpoint(self, http: aiohttp.ClientSession) -> str:
        """A fresh connection URL (taking the ClientConfig that comes with it), or `Drop` saying why not."""
        limit = aiohttp.ClientTimeout(total=CONNECT_TIMEOUT)
        async with http.post(self._endpoint_url, json=self._credentials, headers={"locale": "zh"},
                             timeout=limit) as response:  # fmt: skip
            status, text = response.status, await response.text()
        try:
            answer = json.loads(text)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise Drop(f"ws endpoint: HTTP {status} with a body that is not a JSON object")
        code, msg = answer.get("code"), str(answer.get("msg") or "")
        if status != 200 or code in RETRY_CODES:
            raise Drop(f"ws endpoint: HTTP {status}, code {code}: {msg or 'system busy'}")
        if code != 0:
            raise Drop(f"Feishu refused the app: code {code}: {msg} (check appId, the app secret, and that "
                        "the app receives events by long connection)", fatal=True)  # fmt: skip
        data = value if isinstance(value := answer.get("data"), dict) else {}
        url = data.get("URL")
        if not isinstance(url, str) or not url:
            raise Drop("ws endpoint: an answer without a URL")
        self.config.update(data.get("ClientConfig"))
        return url

    async def _connection(self, http: aiohttp.ClientSession, url: str) -> None:
        query = parse_qs(urlsplit(url).query)
        service = query.get("service_id", ["0"])[0]
        if not service.lstrip("-").isdigit():
            raise Drop("ws endpoint: the URL has no numeric service_id")
        self.connects += 1
        try:
            ws = await asyncio.wait_for(http.ws_connect(url, autoping=True, max_msg_size=0), CONNECT_TIMEOUT)
        except aiohttp.WSServerHandshakeError as exc:
            raise _handshake_drop(exc) from None
        async with ws:
            self._ws, self._heard, self._parts = ws, time.monotonic(), {}
            self.health.ok()
            self.health.detail = "long connection: connected"
            pinger = asyncio.create_task(self._ping(ws, int(service)))
            reader = asyncio.create_task(self._read(ws))
            try:
                await asyncio.wait({pinger, reader}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in (pinger, reader):
                    task.cancel()
                await asyncio.wait({pinger, reader})
                self._ws = None
            if not reader.cancelled() and reader.exception() is not None:
                raise reader.exception()  # type: ignore[misc]
            if not pinger.cancelled() and pinger.exception() is None and pinger.result():
                raise Drop("nothing heard for three ping intervals: the connection was dead")
            code = ws.close_code
        raise Drop(f"connection closed ({code})")

    async def _ping(self, ws: aiohttp.ClientWebSocketResponse, service: int) -> bool:
        """Ping until cancelled; True once the server has been silent too long (the connection is dead)."""
        while not ws.closed:
            if time.monotonic() - self._heard > SILENT_PINGS * max(MIN_WAIT, self.config.ping_interval):
                return True
            ping = Frame(service=service, method=CONTROL, headers=[("type", "ping")])
            await ws.send_bytes(ping.encode())
            await asyncio.sleep(max(MIN_WAIT, self.config.ping_interval))
        return False

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for message in ws:
            if message.type == aiohttp.WSMsgType.ERROR:
                raise Drop(f"connection error: {message.data}")
            if message.type != aiohttp.WSMsgType.BINARY:
                continue  # the protocol is binary frames only
            self._heard = time.monotonic()
            try:
                frame = Frame.decode(message.data)
            except FrameError as exc:
                log.warning("feishu: skipped a malformed frame: %s", exc)
                continue
            if frame.method == CONTROL:
                self._control(frame)
            elif frame.method == DATA:
                await self._data(ws, frame)

    def _control(self, frame: Frame) -> None:
        if frame.header("type") != "pong":
            return
        self.health.last_poll_at = time.time()  # `claw channels status`: "last poll" is the last pong
        if frame.payload:
            try:
                self.config.update(json.loads(frame.payload))
            except ValueError:
                log.warning("feishu: a pong whose ClientConfig is not JSON")

    async def _data(self, ws: aiohttp.ClientWebSocketResponse, frame: Frame) -> None:
        if frame.header("type") != "event":
            return  # card callbacks are not used by claw (lark-oapi leaves them unanswered too)
        payload = self._joined(frame)
        if payload is None:
            return
        started = time.monotonic()
        code = await self._on_event(payload)  # raises if the event could not be stored: no ack
        frame.headers.append(("biz_rt", str(int((time.monotonic() - started) * 1000))))
        frame.payload = json.dumps({"code": code}).encode()
        await ws.send_bytes(frame.encode())

    def _joined(self, frame: Frame) -> bytes | None:
        """The whole payload once every part of its message has arrived (None until then)."""
        total_text, seq_text = frame.header("sum", "1") or "1", frame.header("seq", "0") or "0"
        if not total_text.isdigit() or not seq_text.isdigit():
            log.warning("feishu: skipped a data frame with sum %r, seq %r", total_text, seq_text)
            return None
        total, seq = int(total_text), int(seq_text)
        if total <= 1:
            return frame.payload or b""
        message_id, now = frame.header("message_id"), time.monotonic()
        if seq >= total:
            log.warning("feishu: skipped fragment %d of %d (message %s)", seq, total, message_id)
            return None
        self._parts = {k: v for k, v in self._parts.items() if now - v[0] < FRAGMENT_TTL}
        if message_id not in self._parts and len(self._parts) >= MAX_PENDING_FRAGMENTS:
            self._parts.pop(next(iter(self._parts)))
        _, parts = self._parts.setdefault(message_id, (now, [None] * total))
        if len(parts) != total:
            log.warning("feishu: message %s: fragments disagree on their count; starting again", message_id)
            parts = [None] * total
            self._parts[message_id] = (now, parts)
        parts[seq] = frame.payload or b""
        if any(p is None for p in parts):
            return None
        del self._parts[message_id]
        return b"".join(p or b"" for p in parts)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()


def _handshake_drop(exc: aiohttp.WSServerHandshakeError) -> Drop:
    headers: Mapping[str, str] = exc.headers or {}
    status, msg = headers.get("handshake-status"), headers.get("handshake-msg") or exc.message
    if status is None or not status.isdigit():
        return Drop(f"WebSocket upgrade refused: HTTP {exc.status}")
    auth = headers.get("handshake-autherrcode", "")
    fatal = int(status) == FATAL_HANDSHAKE or (int(status) == AUTH_FAILED and auth == str(EXCEED_CONN_LIMIT))
    return Drop(f"WebSocket upgrade refused: {status} {msg}", fatal=fatal)
