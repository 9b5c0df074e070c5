"""DingTalk's Stream mode: the robot's messages over one long-lived WebSocket, no public URL needed.

Written against the documented protocol (not the `dingtalk-stream` SDK, which is synchronous where it
opens the connection and whose base URL is fixed): `POST /v1.0/gateway/connections/open` with the app's
client id and secret and the subscriptions → `{endpoint, ticket}`; a WebSocket to `endpoint?ticket=…`;
then frames `{specVersion, type, headers: {messageId, topic, contentType, …}, data}` where `data` is a
JSON string. `SYSTEM` `ping` is answered with the same data (that is how DingTalk tells a live client);
`SYSTEM` `disconnect` announces that the server will close the connection, so a new one is opened.
A `CALLBACK` on the robot topic is handed to `on_message`, which returns once the message is in the
inbox, and only then acknowledged (`{code: 200, headers: {contentType, messageId}, message: "OK",
data: "{\\"response\\": null}"}`): DingTalk redelivers what was never acknowledged, and the inbox drops
the repeat by its `msgId`.

Every reconnect waits a backoff with jitter (`Reconnector`: doubling up to `max_backoff`, reset once
connected), and a new ticket is asked for each time (a ticket is good for one connection).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import urllib.parse
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import aiohttp

from claw.channels.dingtalk.api import ROBOT_TOPIC, DingTalkApi, DingTalkError
from claw.channels.host import Health
from claw.channels.reconnect import NETWORK_ERRORS, Drop, Reconnector, doubling

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_SECONDS = 30.0
"""How long the WebSocket handshake may take."""
KEEPALIVE_SECONDS = 30.0
"""WebSocket pings of our own: a connection that stops answering is closed and replaced."""

OnMessage = Callable[[dict[str, Any]], Awaitable[None]]
"""A robot message (the callback's data) → None once it is stored; raising leaves it unacknowledged."""


class DingTalkStream:
    def __init__(self, api: DingTalkApi, client_id: str, client_secret: str, on_message: OnMessage,
                 health: Health, *, max_backoff: float = 60.0) -> None:  # fmt: skip
        self._api = api
        self._client = (client_id, client_secret)
        self._on_message = on_message
        self.health = health
        self.max_backoff = max_backoff
        self.connects = 0
        self.acks = 0

    async def run(self) -> None:
        """Stay connected until cancelled."""
        reconnector = Reconnector("dingtalk", self.health, partial(doubling, cap=self.max_backoff),
                                  link="stream connection", stored="a message",
                                  failed=(*NETWORK_ERRORS, KeyError, TypeError))  # fmt: skip
        await reconnector.run(self._connection)

    async def _connection(self, http: aiohttp.ClientSession) -> None:
        try:
            endpoint, ticket = await self._api.open_connection(*self._client)
        except DingTalkError as exc:
            raise Drop(str(exc)) from None
        url = f"{endpoint}{'&' if '?' in endpoint else '?'}ticket={urllib.parse.quote_plus(ticket)}"
        self.connects += 1
        try:
            async with asyncio.timeout(CONNECT_TIMEOUT_SECONDS):
                ws = await http.ws_connect(url, heartbeat=KEEPALIVE_SECONDS, max_msg_size=0)
        except aiohttp.ClientResponseError as exc:  # its text names the URL, and so the ticket
            raise Drop(f"the stream endpoint refused the connection: HTTP {exc.status} {exc.message}") from None
        async with ws:
            self.health.ok()
            self.health.detail = "stream connected"
            async for message in ws:
                if message.type == aiohttp.WSMsgType.TEXT:
                    frame = json.loads(message.data)
                    if not isinstance(frame, dict):
                        raise Drop("a stream frame that is not a JSON object")
                    await self._handle(ws, frame)
                elif message.type == aiohttp.WSMsgType.ERROR:
                    raise Drop(f"connection error: {ws.exception() or 'unknown'}")
            raise Drop(f"connection closed ({ws.close_code})")

    async def _handle(self, ws: aiohttp.ClientWebSocketResponse, frame: dict[str, Any]) -> None:
        kind = frame.get("type")
        headers = value if isinstance(value := frame.get("headers"), dict) else {}
        topic = headers.get("topic")
        if kind == "SYSTEM":
            if topic == "ping":
                self.health.last_poll_at = time.time()  # `claw channels status`: "last poll" is the last ping
                await ws.send_json({"code": 200, "headers": headers, "message": "OK", "data": frame.get("data")})
            elif topic == "disconnect":
                raise Drop("DingTalk asked to reconnect (disconnect)")
            return
        message_id = str(headers.get("messageId") or "")
        if kind == "CALLBACK" and topic == ROBOT_TOPIC:
            data = json.loads(str(frame.get("data") or "{}"))
            if isinstance(data, dict):
                await self._on_message(data)  # stored (or a duplicate) once this returns
            await self._ack(ws, message_id, 200, "OK", {"response": None})
        elif kind == "EVENT":  # not subscribed to; acknowledged so it is not resent forever
            await self._ack(ws, message_id, 200, "OK", {"status": "SUCCESS", "message": "success"})
        else:
            await self._ack(ws, message_id, 404, "no handler for this topic", {"response": None})

    async def _ack(self, ws: aiohttp.ClientWebSocketResponse, message_id: str, code: int, text: str,
                   data: dict[str, Any]) -> None:  # fmt: skip
        headers = {"contentType": "application/json", "messageId": message_id}
        await ws.send_json({"code": code, "headers": headers, "message": text, "data": json.dumps(data)})
        self.acks += 1
