"""A fake Feishu open platform on loopback, following the documented contract: the tenant_access_token
endpoint (with expiry, and tokens the test can revoke), `bot/v3/info`, message reply / create / patch
(deduped on `uuid`), error codes scripted per path (the rate-limit code 99991400 …); and the sender's
side of the event subscription: `event_request` builds a v2 event, encrypted with the Encrypt Key and
signed as the platform signs it."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import urllib.request
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from claw.channels.feishu.crypto import encrypt, signature
from claw.channels.feishu.frame import CONTROL, DATA, Frame
from tests.channels.fakes import _Threaded

APP_ID = "cli_test_app_1234"
APP_SECRET = "feishu-app-secret-9a8b7c6d5e"
ENCRYPT_KEY = "feishu-encrypt-key-1f2e3d4c"
VERIFY_TOKEN = "feishu-verify-token-5b6a7c8d"
BOT_OPEN_ID = "ou_bot_0000000000000001"


@dataclass
class Call:
    method: str
    path: str
    body: dict[str, Any]
    token: str
    at: float = field(default_factory=time.monotonic)


class FakeFeishu(_Threaded):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[Call] = []
        self.valid_tokens: set[str] = set()
        self.failures: dict[str, deque[tuple[int, int, str]]] = {}
        self.messages: dict[str, dict[str, Any]] = {}
        """message id → {"parent": replied-to id, "markdown": current text, "uuid": …}, in send order."""
        self._uuids: dict[str, str] = {}
        self._ids = itertools.count(1)
        self.users: dict[str, str] = {}
        """open_id → name, for `contact/v3/users/{open_id}`; a user not here is one the app may not see."""

    def routes(self, app: web.Application) -> None:
        app.router.add_route("*", "/open-apis/{path:.*}", self._handle)

    # --- scripting ----------------------------------------------------------------------------

    def fail(self, path_prefix: str, code: int, msg: str, *, status: int = 400, times: int = 1) -> None:
        with self.lock:
            self.failures.setdefault(path_prefix, deque()).extend([(status, code, msg)] * times)

    def revoke_tokens(self) -> None:
        """Every token issued so far stops working (the platform rotates or expires them early)."""
        with self.lock:
            self.valid_tokens.clear()

    def calls_to(self, fragment: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if fragment in c.path]

    def replies(self) -> list[dict[str, Any]]:
        """The messages sent, in order: {"id", "parent", "markdown"}."""
        with self.lock:
            return [{"id": k, **v} for k, v in self.messages.items()]

    # --- the API ------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        path = request.match_info["path"]
        full = f"{path}?{request.query_string}" if request.query_string else path
        body = await request.json() if request.can_read_body else {}
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        with self.lock:
            self.calls.append(Call(request.method, full, body, token))
            self.lock.notify_all()
            failure = next((q.popleft() for p, q in self.failures.items() if path.startswith(p) and q), None)
        if failure is not None:
            status, code, msg = failure
            return web.json_response({"code": code, "msg": msg}, status=status)
        if path == "auth/v3/tenant_access_token/internal":
            if body != {"app_id": APP_ID, "app_secret": APP_SECRET}:
                return web.json_response({"code": 10014, "msg": "app secret invalid"}, status=400)
            issued = f"t-{uuid.uuid4().hex}"
            with self.lock:
                self.valid_tokens.add(issued)
            return web.json_response({"code": 0, "msg": "ok", "tenant_access_token": issued, "expire": 7200})
        with self.lock:
            if token not in self.valid_tokens:
                return web.json_response({"code": 99991663, "msg": "Invalid access token for authorization"},
                                         status=400)  # fmt: skip
        if path == "bot/v3/info" and request.method == "GET":
            return web.json_response({"code": 0, "msg": "ok", "bot": {"open_id": BOT_OPEN_ID, "app_name": "Claw"}})
        if path.startswith("contact/v3/users/") and request.method == "GET":
            return self._user(path.removeprefix("contact/v3/users/"), request.query.get("user_id_type", ""))
        if path.startswith("im/v1/messages/") and path.endswith("/reply") and request.method == "POST":
            return self._send(body, parent=path.split("/")[3])
        if path == "im/v1/messages" and request.method == "POST":
            return self._send(body, parent=None)
        if path.startswith("im/v1/messages/") and request.method == "PATCH":
            message_id = path.split("/")[3]
            with self.lock:
                if message_id not in self.messages:
                    return web.json_response({"code": 230001, "msg": "message not found"}, status=400)
                self.messages[message_id]["markdown"] = _markdown(body["content"])
            return web.json_response({"code": 0, "msg": "success", "data": {}})
        return web.json_response({"code": 404, "msg": "not found"}, status=404)

    def _user(self, open_id: str, id_type: str) -> web.Response:
        with self.lock:
            name = self.users.get(open_id) if id_type == "open_id" else None
        if name is None:  # what the platform says when the app lacks the scope or cannot see the user
            return web.json_response({"code": 41050, "msg": "no user authority error"}, status=400)
        user = {"open_id": open_id, "name": name, "en_name": name}
        return web.json_response({"code": 0, "msg": "success", "data": {"user": user}})

    def _send(self, body: dict[str, Any], parent: str | None) -> web.Response:
        assert body["msg_type"] == "interactive", body
        with self.lock:
            key = body.get("uuid")
            if key and key in self._uuids:  # the platform's dedupe: the same message again
                message_id = self._uuids[key]
            else:
                message_id = f"om_reply_{next(self._ids)}"
                self.messages[message_id] = {"parent": parent, "markdown": _markdown(body["content"]),
                                             "to": body.get("receive_id")}  # fmt: skip
                if key:
                    self._uuids[key] = message_id
        return web.json_response({"code": 0, "msg": "success", "data": {"message_id": message_id}})


def _markdown(content: str) -> str:
    card = json.loads(content)
    return "".join(e["content"] for e in card["elements"] if e["tag"] == "markdown")


_seq = itertools.count(1)


def message_event(text: str, *, chat_type: str = "p2p", sender: str = "ou_ada", chat_id: str = "oc_chat_1",
                  message_id: str | None = None, event_id: str | None = None, root_id: str | None = None,
                  mentions: list[dict[str, Any]] | None = None, message_type: str = "text",
                  content: dict[str, Any] | None = None, token: str = VERIFY_TOKEN) -> dict[str, Any]:  # fmt: skip
    """A v2 `im.message.receive_v1` event."""
    n = next(_seq)
    message: dict[str, Any] = {
        "message_id": message_id or f"om_in_{n}",
        "chat_id": chat_id,
        "chat_type": chat_type,
        "message_type": message_type,
        "content": json.dumps(content if content is not None else {"text": text}),
        "create_time": str(int(time.time() * 1000)),
    }
    if root_id:
        message["root_id"] = message["parent_id"] = root_id
    if mentions:
        message["mentions"] = mentions
    return {
        "schema": "2.0",
        "header": {
            "event_id": event_id or f"ev_{uuid.uuid4().hex}",
            "event_type": "im.message.receive_v1",
            "create_time": str(int(time.time() * 1000)),
            "token": token,
            "app_id": APP_ID,
            "tenant_key": "tk",
        },  # fmt: skip
        "event": {
            "sender": {"sender_id": {"open_id": sender}, "sender_type": "user", "tenant_key": "tk"},
            "message": message,
        },  # fmt: skip
    }


def bot_mention(key: str = "@_user_1") -> dict[str, Any]:
    return {"key": key, "id": {"open_id": BOT_OPEN_ID}, "name": "Claw", "tenant_key": "tk"}


def event_request(url: str, payload: dict[str, Any], *, encrypt_key: str | None = ENCRYPT_KEY,
                  timestamp: int | None = None, sign: bool = True,
                  bad_signature: bool = False) -> urllib.request.Request:  # fmt: skip
    """The platform's POST of `payload`: encrypted and signed with `encrypt_key` (plain JSON without one)."""
    plain = json.dumps(payload, ensure_ascii=False)
    body = (json.dumps({"encrypt": encrypt(plain, encrypt_key)}) if encrypt_key else plain).encode()
    headers = {"Content-Type": "application/json"}
    if encrypt_key and sign:
        stamp, nonce = str(int(time.time()) if timestamp is None else timestamp), uuid.uuid4().hex
        sig = signature(stamp, nonce, encrypt_key, body)
        headers |= {"X-Lark-Request-Timestamp": stamp, "X-Lark-Request-Nonce": nonce,
                    "X-Lark-Signature": ("0" * 64) if bad_signature else sig}  # fmt: skip
    return urllib.request.Request(url, data=body, method="POST", headers=headers)


# --- the long connection ----------------------------------------------------------------------------

SERVICE_ID = 77


@dataclass
class Push:
    """One event pushed over the long connection, until the client acks it with code 200."""

    message_id: str
    payload: bytes
    parts: int
    reverse: bool = False
    sent: int = 0
    acks: list[dict[str, Any]] = field(default_factory=list)
    """Each ack's JSON payload, with its `biz_rt` header under "biz_rt"."""

    @property
    def acked(self) -> bool:
        return any(a.get("code") == 200 for a in self.acks)


class FakeFeishuWs(FakeFeishu):
    """FakeFeishu plus the long connection as lark-oapi's client meets it: `POST /callback/ws/endpoint`
    (`{AppID, AppSecret}` → a ws URL with device_id/service_id and a ClientConfig), and a WebSocket
    speaking `pbbp2.Frame`s: pings answered with pongs (carrying the ClientConfig), events pushed as
    data frames (in `sum` fragments when asked), pushed again every `redeliver_after` seconds and on
    every new connection until acked with `{"code": 200}`."""

    def __init__(self, *, ping_interval: int = 1, reconnect_interval: int = 1, reconnect_nonce: int = 0,
                 redeliver_after: float = 2.0) -> None:  # fmt: skip
        super().__init__()
        self.client_config = {"ReconnectCount": -1, "ReconnectInterval": reconnect_interval,
                              "ReconnectNonce": reconnect_nonce, "PingInterval": ping_interval}  # fmt: skip
        self.redeliver_after = redeliver_after
        self.endpoint_refusal: tuple[int, str] | None = None
        """(code, msg) the endpoint answers with instead of a URL (the app not allowed a long connection …)."""
        self.endpoint_busy = 0
        """How many of the next endpoint calls answer code 1, "system busy" (worth retrying)."""
        self.endpoint_calls: list[dict[str, Any]] = []
        self.endpoint_times: list[float] = []
        self.closes: list[float] = []
        """When the server closed a connection (monotonic)."""
        self.connects: list[float] = []
        """When each WebSocket was accepted (monotonic)."""
        self.pings: list[tuple[float, int, list[tuple[str, str]]]] = []
        self.pushes: dict[str, Push] = {}
        self.silent = False
        """The current connection stops answering pings and pushing events (it is dead, yet open)."""
        self.lose_acks = False
        """Acks are lost on the way: the platform keeps pushing the event again."""
        self._ws: web.WebSocketResponse | None = None
        self._devices = itertools.count(1)

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/callback/ws/endpoint", self._endpoint)
        app.router.add_get("/ws", self._socket)
        super().routes(app)

    # --- scripting (thread-safe) --------------------------------------------------------------

    def _run(self, coro: Any) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    @property
    def connected(self) -> bool:
        with self.lock:
            return self._ws is not None and not self._ws.closed

    def push(self, event: dict[str, Any], *, parts: int = 1, reverse: bool = False) -> Push:
        """Send `event` on the current connection, split into `parts` fragments (last first if `reverse`)."""
        payload = json.dumps(event, ensure_ascii=False).encode()
        item = Push(f"msg_{uuid.uuid4().hex[:16]}", payload, parts, reverse)
        with self.lock:
            self.pushes[item.message_id] = item
        self._run(self._deliver(item))
        assert self._loop is not None
        asyncio.run_coroutine_threadsafe(self._redeliver(item), self._loop)
        return item

    def close_connection(self) -> None:
        """The server closes the current connection (as the platform does on a deploy)."""

        async def close() -> None:
            with self.lock:
                ws = self._ws
            assert ws is not None, "no connection"
            with self.lock:
                self.closes.append(time.monotonic())
            await ws.close(code=1001, message=b"server going away")

        self._run(close())

    def unacked(self) -> list[Push]:
        with self.lock:
            return [p for p in self.pushes.values() if not p.acked]

    # --- the endpoint and the socket ---------------------------------------------------------

    async def _endpoint(self, request: web.Request) -> web.Response:
        body = await request.json()
        with self.lock:
            self.endpoint_calls.append(body)
            self.endpoint_times.append(time.monotonic())
            self.lock.notify_all()
            refusal = self.endpoint_refusal
            busy, self.endpoint_busy = self.endpoint_busy > 0, max(0, self.endpoint_busy - 1)
        if body != {"AppID": APP_ID, "AppSecret": APP_SECRET}:
            return web.json_response({"code": 10003, "msg": "invalid app_id or app_secret"})
        if busy:
            return web.json_response({"code": 1, "msg": "system busy"})
        if refusal is not None:
            return web.json_response({"code": refusal[0], "msg": refusal[1]})
        url = f"ws://127.0.0.1:{self.port}/ws?device_id=dev{next(self._devices)}&service_id={SERVICE_ID}"
        return web.json_response({"code": 0, "msg": "ok", "data": {"URL": url, "ClientConfig": self.client_config}})

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        if request.query.get("service_id") != str(SERVICE_ID) or not request.query.get("device_id"):
            return web.Response(status=403, headers={"handshake-status": "403", "handshake-msg": "bad url"})
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        with self.lock:
            self._ws, self.silent = ws, False
            self.connects.append(time.monotonic())
            waiting = [p for p in self.pushes.values() if not p.acked]
            self.lock.notify_all()
        for item in waiting:  # a new connection gets what the last one left unacked
            await self._deliver(item)
        try:
            async for message in ws:
                if message.type == web.WSMsgType.BINARY:
                    await self._frame(ws, Frame.decode(message.data))
        finally:
            with self.lock:
                if self._ws is ws:
                    self._ws = None
                self.lock.notify_all()
        return ws

    async def _frame(self, ws: web.WebSocketResponse, frame: Frame) -> None:
        with self.lock:
            silent = self.silent
        if frame.method == CONTROL and frame.header("type") == "ping":
            with self.lock:
                self.pings.append((time.monotonic(), frame.service, list(frame.headers)))
                self.lock.notify_all()
            if not silent:
                pong = Frame(service=frame.service, method=CONTROL, headers=[("type", "pong")],
                             payload=json.dumps(self.client_config).encode())  # fmt: skip
                await ws.send_bytes(pong.encode())
        elif frame.method == DATA:
            ack = json.loads(frame.payload or b"{}")
            with self.lock:
                item = self.pushes.get(frame.header("message_id"))
                if item is not None and not self.lose_acks:
                    item.acks.append({**ack, "biz_rt": frame.header("biz_rt", "")})
                self.lock.notify_all()

    async def _deliver(self, item: Push) -> None:
        with self.lock:
            ws, silent = self._ws, self.silent
        if ws is None or ws.closed or silent:
            return
        size = -(-len(item.payload) // item.parts)
        for seq in reversed(range(item.parts)) if item.reverse else range(item.parts):
            headers = [("type", "event"), ("message_id", item.message_id), ("sum", str(item.parts)),
                       ("seq", str(seq)), ("trace_id", uuid.uuid4().hex)]  # fmt: skip
            chunk = item.payload[seq * size : (seq + 1) * size]
            frame = Frame(seq_id=seq, log_id=next(self._ids), service=SERVICE_ID, method=DATA, headers=headers,
                          payload=chunk)  # fmt: skip
            await ws.send_bytes(frame.encode())
        with self.lock:
            item.sent += 1
            self.lock.notify_all()

    async def _redeliver(self, item: Push) -> None:
        while True:
            await asyncio.sleep(self.redeliver_after)
            with self.lock:
                if item.acked or self._loop is None:
                    return
            await self._deliver(item)
