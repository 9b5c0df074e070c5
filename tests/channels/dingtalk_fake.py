"""A fake DingTalk open platform on loopback, following the documented contract of the parts claw uses:

- `POST /v1.0/oauth2/accessToken` ({appKey, appSecret} → {accessToken, expireIn}); tokens expire after
  `token_ttl` seconds (real time) and can be revoked; an OpenAPI call without a valid
  `x-acs-dingtalk-access-token` answers 401 `InvalidAuthentication`.
- Stream mode: `POST /v1.0/gateway/connections/open` (clientId, clientSecret, the robot topic among the
  subscriptions → {endpoint, ticket}; a ticket opens one connection), the WebSocket at the endpoint,
  `push` of a robot message as a `CALLBACK` frame, `ping` (SYSTEM, answered with the same data),
  `disconnect` (SYSTEM, then the server closes), `drop` (the socket simply dies). Whatever was pushed and
  never acknowledged is delivered again on the next connection, as DingTalk redelivers.
- Replies: each message's `sessionWebhook` (`/robot/sendBySession?session=…`, valid until its
  `sessionWebhookExpiredTime`), `oToMessages/batchSend` and `groupMessages/send` with `sampleMarkdown`;
  `fail` scripts error answers per path (the rate limits …).
- Interactive cards: `card/instances/createAndDeliver` (a template id, an `outTrackId`, the open space of a
  single chat or a group), `PUT card/streaming` (full content, `isFinalize`), `PUT card/instances`.
- The sender's side of HTTP mode: `callback_request` signs a robot message as DingTalk does.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import urllib.request
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from claw.channels.dingtalk.wire import sign
from tests.channels.fakes import _Threaded

CLIENT_ID = "dingtestclientid0001"
CLIENT_SECRET = "dingtalk-client-secret-3c4d5e6f7a8b"
ROBOT_TOPIC = "/v1.0/im/bot/messages/get"
EXPIRED_SESSION = 300001
"""The fake's errcode for a session webhook past its expiry (the adapter does not depend on the number)."""


@dataclass
class Call:
    path: str
    body: dict[str, Any]
    token: str
    status: int
    at: float = field(default_factory=time.monotonic)


@dataclass
class _Conn:
    ws: web.WebSocketResponse
    request: web.Request


class FakeDingTalk(_Threaded):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[Call] = []
        self.token_ttl = 7200
        self.tokens: dict[str, float] = {}
        """token → when it expires (monotonic)."""
        self.tickets: set[str] = set()
        self.issued: list[str] = []
        self.refuse_tickets = 0
        """The next this many WebSocket handshakes are refused (401) whatever their ticket."""
        self.opens: list[dict[str, Any]] = []
        self.connections = 0
        self.pending: dict[str, dict[str, Any]] = {}
        """Pushed, not yet acknowledged: messageId → frame (in push order)."""
        self.deliveries: list[str] = []
        self.acks: list[dict[str, Any]] = []
        self.pongs: list[dict[str, Any]] = []
        self.sent: list[dict[str, Any]] = []
        """Replies that arrived: {"via", "to", "title", "text"}, in order."""
        self.lose_acks = 0
        """The next this many acknowledgements are lost on the way (the message stays pending)."""
        self.on_ack: Callable[[str], None] | None = None
        """Called (on the fake's thread) with each acknowledged messageId, before it is recorded."""
        self.cards: dict[str, dict[str, Any]] = {}
        """outTrackId → {"template", "space", "params", "frames": [content streamed …], "finalized"}."""
        self._sessions: dict[str, tuple[dict[str, Any], int]] = {}
        self._failures: dict[str, deque[tuple[int, dict[str, Any]]]] = {}
        self._conn: _Conn | None = None
        self._ids = itertools.count(1)

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1.0/oauth2/accessToken", self._token)
        app.router.add_post("/v1.0/gateway/connections/open", self._open)
        app.router.add_get("/stream", self._stream)
        app.router.add_post("/v1.0/robot/{kind}/{action}", self._robot)
        app.router.add_post("/robot/sendBySession", self._webhook)
        app.router.add_post("/v1.0/card/instances/createAndDeliver", self._card_create)
        app.router.add_put("/v1.0/card/streaming", self._card_stream)
        app.router.add_put("/v1.0/card/instances", self._card_put)

    # --- scripting (thread-safe) --------------------------------------------------------------

    def _run(self, coro: Any) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    def message(self, text: str, *, conversation_type: str = "1", sender: str = "staff-ada",
                conversation_id: str | None = None, at: bool = False, msg_id: str | None = None,
                webhook_ttl_ms: int = 3_600_000, msgtype: str = "text") -> dict[str, Any]:  # fmt: skip
        """A robot message as DingTalk sends it (the callback's data), with a session webhook on this fake."""
        n = next(self._ids)
        direct = conversation_type == "1"
        cid = conversation_id or (f"cid-dm-{sender}" if direct else "cid-group-1")
        session = uuid.uuid4().hex
        expires = int(time.time() * 1000) + webhook_ttl_ms
        with self.lock:
            self._sessions[session] = ({"conversation": cid, "user": sender if direct else None}, expires)
        found: dict[str, Any] = {
            "msgId": msg_id or f"msg{n:06d}",
            "msgtype": msgtype,
            "text": {"content": text},
            "conversationType": conversation_type,
            "conversationId": cid,
            "senderStaffId": sender,
            "senderId": f"$:LWCP_v1:${sender}",
            "senderNick": sender.removeprefix("staff-").title(),
            "chatbotUserId": "$:LWCP_v1:$bot",
            "robotCode": CLIENT_ID,
            "isInAtList": at,
            "createAt": int(time.time() * 1000),
            "sessionWebhook": f"{self.url}/robot/sendBySession?session={session}",
            "sessionWebhookExpiredTime": expires,
        }
        if not direct:
            found["conversationTitle"] = "Team"
        return found

    def push(self, message: dict[str, Any]) -> str:
        """Send `message` as a robot CALLBACK on the current connection; it stays pending until acknowledged."""
        message_id = uuid.uuid4().hex
        frame = {"specVersion": "1.0", "type": "CALLBACK", "data": json.dumps(message, ensure_ascii=False),
                 "headers": {"appId": CLIENT_ID, "connectionId": "c1", "contentType": "application/json",
                             "messageId": message_id, "time": str(int(time.time() * 1000)),
                             "topic": ROBOT_TOPIC}}  # fmt: skip
        with self.lock:
            self.pending[message_id] = frame
        self._run(self._send(frame))
        return message_id

    def ping(self) -> str:
        opaque = uuid.uuid4().hex
        frame = {"specVersion": "1.0", "type": "SYSTEM", "data": json.dumps({"opaque": opaque}),
                 "headers": {"contentType": "application/json", "messageId": uuid.uuid4().hex,
                             "time": str(int(time.time() * 1000)), "topic": "ping"}}  # fmt: skip
        self._run(self._send(frame))
        return opaque

    def disconnect(self, close_after: float = 0.5) -> None:
        """SYSTEM `disconnect`: DingTalk will close this connection shortly; the client should open another."""
        frame = {"specVersion": "1.0", "type": "SYSTEM", "data": json.dumps({"reason": "server maintenance"}),
                 "headers": {"contentType": "application/json", "messageId": uuid.uuid4().hex,
                             "topic": "disconnect"}}  # fmt: skip

        async def announce_then_close() -> None:
            with self.lock:
                conn = self._conn
            await self._send(frame)
            await asyncio.sleep(close_after)
            if conn is not None and not conn.ws.closed:
                await conn.ws.close()

        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(announce_then_close(), self._loop)

    def drop(self) -> None:
        """The socket dies without a close handshake (a network failure)."""

        async def abort() -> None:
            with self.lock:
                conn = self._conn
            assert conn is not None, "no connection"
            assert conn.request.transport is not None
            conn.request.transport.abort()

        self._run(abort())

    def fail(self, path: str, status: int, payload: dict[str, Any], *, times: int = 1) -> None:
        """The next `times` calls whose path ends with `path` answer `status` with `payload`."""
        with self.lock:
            self._failures.setdefault(path, deque()).extend([(status, payload)] * times)

    def revoke_tokens(self) -> None:
        with self.lock:
            self.tokens.clear()

    def expire_sessions(self) -> None:
        """Every session webhook handed out so far stops working (DingTalk's clock decides, not the message)."""
        with self.lock:
            self._sessions = {k: (v, 0) for k, (v, _) in self._sessions.items()}

    def calls_to(self, fragment: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if fragment in c.path]

    def connected(self) -> bool:
        with self.lock:
            return self._conn is not None and not self._conn.ws.closed

    def replies(self) -> list[dict[str, Any]]:
        with self.lock:
            return list(self.sent)

    # --- the API ------------------------------------------------------------------------------

    def _failure(self, path: str) -> tuple[int, dict[str, Any]] | None:
        with self.lock:
            return next((q.popleft() for p, q in self._failures.items() if path.endswith(p) and q), None)

    def _record(self, request: web.Request, body: dict[str, Any], status: int) -> None:
        token = request.headers.get("x-acs-dingtalk-access-token", "")
        with self.lock:
            self.calls.append(Call(request.path, body, token, status))
            self.lock.notify_all()

    async def _token(self, request: web.Request) -> web.Response:
        body = await request.json()
        if body != {"appKey": CLIENT_ID, "appSecret": CLIENT_SECRET}:
            self._record(request, body, 400)
            return web.json_response({"code": "invalidClientIdOrSecret", "message": "无效的clientId或者clientSecret"},
                                     status=400)  # fmt: skip
        issued = f"at-{uuid.uuid4().hex}"
        with self.lock:
            self.tokens[issued] = time.monotonic() + self.token_ttl
        self._record(request, body, 200)
        return web.json_response({"accessToken": issued, "expireIn": self.token_ttl})

    async def _open(self, request: web.Request) -> web.Response:
        body = await request.json()
        failure = self._failure(request.path)
        if failure is not None:
            self._record(request, body, failure[0])
            return web.json_response(failure[1], status=failure[0])
        topics = [(s.get("type"), s.get("topic")) for s in body.get("subscriptions") or []]
        if body.get("clientId") != CLIENT_ID or body.get("clientSecret") != CLIENT_SECRET:
            self._record(request, body, 401)
            return web.json_response({"code": "authFailed", "message": "clientId or clientSecret invalid"}, status=401)
        if ("CALLBACK", ROBOT_TOPIC) not in topics:
            self._record(request, body, 400)
            return web.json_response({"code": "invalidParameter", "message": "no subscriptions"}, status=400)
        ticket = uuid.uuid4().hex
        with self.lock:
            self.tickets.add(ticket)
            self.issued.append(ticket)
            self.opens.append(body)
        self._record(request, body, 200)
        return web.json_response({"endpoint": f"ws://127.0.0.1:{self.port}/stream", "ticket": ticket})

    async def _stream(self, request: web.Request) -> web.StreamResponse:
        ticket = request.query.get("ticket", "")
        with self.lock:
            valid = ticket in self.tickets and self.refuse_tickets <= 0
            self.refuse_tickets -= 1
            self.tickets.discard(ticket)  # one connection per ticket
        if not valid:
            return web.json_response({"code": "invalidTicket", "message": "ticket invalid"}, status=401)
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        with self.lock:
            self.connections += 1
            self._conn = _Conn(ws, request)
            redeliver = list(self.pending.values())
            self.lock.notify_all()
        for frame in redeliver:  # never acknowledged: DingTalk delivers it again
            await self._send(frame)
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                break
            self._answered(json.loads(msg.data))
        with self.lock:
            if self._conn is not None and self._conn.ws is ws:
                self._conn = None
            self.lock.notify_all()
        return ws

    def _answered(self, frame: dict[str, Any]) -> None:
        headers = frame.get("headers") or {}
        if headers.get("topic") == "ping":
            with self.lock:
                self.pongs.append(frame)
                self.lock.notify_all()
            return
        message_id = str(headers.get("messageId"))
        with self.lock:
            if self.lose_acks > 0:
                self.lose_acks -= 1
                return
        if self.on_ack is not None:
            self.on_ack(message_id)
        with self.lock:
            self.acks.append(frame)
            if frame.get("code") == 200:
                self.pending.pop(message_id, None)
            self.lock.notify_all()

    async def _send(self, frame: dict[str, Any]) -> None:
        with self.lock:
            conn = self._conn
        assert conn is not None, "no stream connection"
        if frame.get("type") == "CALLBACK":
            with self.lock:
                self.deliveries.append(frame["headers"]["messageId"])
        await conn.ws.send_json(frame)

    async def _robot(self, request: web.Request) -> web.Response:
        body = await request.json()
        token = request.headers.get("x-acs-dingtalk-access-token", "")
        with self.lock:
            valid = self.tokens.get(token, 0) > time.monotonic()
        if not valid:
            self._record(request, body, 401)
            return web.json_response({"code": "InvalidAuthentication", "message": "不合法的access_token"}, status=401)
        failure = self._failure(request.path)
        if failure is not None:
            self._record(request, body, failure[0])
            return web.json_response(failure[1], status=failure[0])
        if body.get("robotCode") != CLIENT_ID or body.get("msgKey") != "sampleMarkdown":
            self._record(request, body, 400)
            return web.json_response({"code": "invalidParameter", "message": "robotCode or msgKey"}, status=400)
        param = json.loads(body["msgParam"])
        kind = request.match_info["kind"], request.match_info["action"]
        if kind == ("oToMessages", "batchSend"):
            with self.lock:
                for user in body["userIds"]:
                    self.sent.append({"via": "batchSend", "to": user, "title": param["title"], "text": param["text"]})
        elif kind == ("groupMessages", "send"):
            with self.lock:
                self.sent.append({"via": "groupSend", "to": body["openConversationId"], "title": param["title"],
                                  "text": param["text"]})  # fmt: skip
        else:
            self._record(request, body, 404)
            return web.json_response({"code": "notFound", "message": "no such API"}, status=404)
        self._record(request, body, 200)
        answer: dict[str, Any] = {"processQueryKey": f"pqk-{next(self._ids)}"}
        if kind[0] == "oToMessages":
            answer |= {"invalidStaffIdList": [], "flowControlledStaffIdList": []}
        return web.json_response(answer)

    async def _authorized(self, request: web.Request) -> tuple[dict[str, Any], web.Response | None]:
        body = await request.json()
        token = request.headers.get("x-acs-dingtalk-access-token", "")
        with self.lock:
            valid = self.tokens.get(token, 0) > time.monotonic()
        if not valid:
            self._record(request, body, 401)
            return body, web.json_response({"code": "InvalidAuthentication", "message": "不合法的access_token"},
                                           status=401)  # fmt: skip
        return body, None

    async def _card_create(self, request: web.Request) -> web.Response:
        body, refused = await self._authorized(request)
        if refused is not None:
            return refused
        space = str(body.get("openSpaceId", ""))
        group = space.startswith("dtv1.card//IM_GROUP.") and body.get("imGroupOpenDeliverModel", {}).get("robotCode")
        single = space.startswith("dtv1.card//IM_ROBOT.") and "imRobotOpenDeliverModel" in body
        if not body.get("cardTemplateId") or not body.get("outTrackId") or not (group or single):
            self._record(request, body, 400)
            return web.json_response({"code": "invalidParameter", "message": "card or open space"}, status=400)
        with self.lock:
            if body["outTrackId"] in self.cards:
                self._record(request, body, 400)
                return web.json_response({"code": "cardExists", "message": "outTrackId exists"}, status=400)
            self.cards[body["outTrackId"]] = {"template": body["cardTemplateId"], "space": space,
                                              "params": dict(body["cardData"]["cardParamMap"]), "frames": [],
                                              "finalized": False}  # fmt: skip
        self._record(request, body, 200)
        return web.json_response({"success": True, "result": {"outTrackId": body["outTrackId"]}})

    async def _card_stream(self, request: web.Request) -> web.Response:
        body, refused = await self._authorized(request)
        if refused is not None:
            return refused
        with self.lock:
            card = self.cards.get(str(body.get("outTrackId")))
            if card is None or card["finalized"] or not body.get("isFull"):
                self._record(request, body, 400)
                return web.json_response({"code": "invalidParameter", "message": "no such open card"}, status=400)
            card["params"][body["key"]] = body["content"]
            card["frames"].append(body["content"])
            card["finalized"] = bool(body.get("isFinalize"))
        self._record(request, body, 200)
        return web.json_response({"success": True})

    async def _card_put(self, request: web.Request) -> web.Response:
        body, refused = await self._authorized(request)
        if refused is not None:
            return refused
        with self.lock:
            card = self.cards.get(str(body.get("outTrackId")))
            if card is None:
                self._record(request, body, 400)
                return web.json_response({"code": "invalidParameter", "message": "no such card"}, status=400)
            card["params"].update(body["cardData"]["cardParamMap"])
        self._record(request, body, 200)
        return web.json_response({"success": True})

    async def _webhook(self, request: web.Request) -> web.Response:
        body = await request.json()
        failure = self._failure(request.path)
        if failure is not None:
            self._record(request, body, failure[0])
            return web.json_response(failure[1], status=failure[0])
        with self.lock:
            found = self._sessions.get(request.query.get("session", ""))
        if found is None or found[1] <= time.time() * 1000:
            self._record(request, body, 200)
            return web.json_response({"errcode": EXPIRED_SESSION, "errmsg": "session webhook expired"})
        target, _ = found
        if body.get("msgtype") != "markdown":
            self._record(request, body, 200)
            return web.json_response({"errcode": 40035, "errmsg": "invalid msgtype"})
        with self.lock:
            self.sent.append({"via": "webhook", "to": target["user"] or target["conversation"],
                              "title": body["markdown"]["title"], "text": body["markdown"]["text"]})  # fmt: skip
        self._record(request, body, 200)
        return web.json_response({"errcode": 0, "errmsg": "ok"})


def callback_request(url: str, message: dict[str, Any], *, secret: str = CLIENT_SECRET,
                     timestamp_ms: int | None = None, signed: bool = True) -> urllib.request.Request:  # fmt: skip
    """DingTalk's POST of a robot message to an HTTP-mode robot: `timestamp` (ms) and `sign` headers."""
    headers = {"Content-Type": "application/json"}
    if signed:
        stamp = str(int(time.time() * 1000) if timestamp_ms is None else timestamp_ms)
        headers |= {"timestamp": stamp, "sign": sign(stamp, secret)}
    body = json.dumps(message, ensure_ascii=False).encode()
    return urllib.request.Request(url, data=body, method="POST", headers=headers)
