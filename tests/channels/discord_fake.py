"""A fake Discord on loopback, following the documented contract of the parts claw uses:

- the gateway (WebSocket, `/?v=10&encoding=json`, resume URL `/resume/`): Hello with a short
  `heartbeat_interval`, ACKs for heartbeats, Identify → Ready (session id, resume URL, the bot user),
  Resume → the session's events after the given `seq`, then Resumed (an unknown session: op 9 false);
  every dispatch numbered per session. Scripting: `dispatch` an event, `go_deaf` (this connection
  stops ACKing and receiving — a zombied link; its events wait for a Resume), `send_op` (7, 9),
  `replay_overlap` (a Resume also replays the last event already delivered, as Discord may).
- REST under `/api/v10`: create and edit messages, get a channel, `/users/@me`; `Authorization: Bot …`
  checked; per-channel rate-limit buckets announced in `X-RateLimit-*` headers (exceeding one is a
  429); `fail` makes the next calls answer 429 with `retry_after` (or any status).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.channels.fakes import _Threaded

DISCORD_TOKEN = "MTIzNDU2Nzg5.fake-discord-token.abcdefghij"
BOT_ID = "900000000000000001"
BOT_NAME = "clawbot"
INTERVAL_MS = 250


@dataclass
class _Session:
    id: str
    events: list[dict[str, Any]] = field(default_factory=list)
    seq: itertools.count = field(default_factory=lambda: itertools.count(1))


@dataclass
class Rest:
    method: str
    path: str
    body: dict[str, Any]
    status: int
    at: float = field(default_factory=time.monotonic)


class FakeDiscord(_Threaded):
    def __init__(self, *, bucket_limit: int = 5, bucket_window: float = 1.0) -> None:
        super().__init__()
        self.identifies: list[dict[str, Any]] = []
        self.resumes: list[dict[str, Any]] = []
        self.heartbeats: list[tuple[float, Any]] = []
        self.connections: list[str] = []
        self.closes: list[int | None] = []
        self.rest: list[Rest] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.channels: dict[str, dict[str, Any]] = {}
        self.replay_overlap = False
        self.bucket_limit, self.bucket_window = bucket_limit, bucket_window
        self._buckets: dict[str, tuple[float, int]] = {}
        self._failures: deque[tuple[int, float | None, bool]] = deque()
        self._sessions: dict[str, _Session] = {}
        self._current: tuple[web.WebSocketResponse, _Session | None] | None = None
        self._deaf: web.WebSocketResponse | None = None
        self._ids = itertools.count(1_100_000_000_000_000_000)

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/", self._gateway)
        app.router.add_get("/resume/", self._gateway)
        app.router.add_route("*", "/api/v10/{path:.*}", self._rest)

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.url}/api/v10"

    # --- scripting (thread-safe) --------------------------------------------------------------

    def _run(self, coro: Any) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    def dispatch(self, event: str, data: dict[str, Any]) -> int:
        """Number `event` in the current session and send it (held back while the connection is deaf)."""
        return self._run(self._dispatch(event, data))

    def go_deaf(self) -> None:
        """The current connection goes silent: no ACKs, no events (they wait for a Resume)."""
        with self.lock:
            self._deaf = self._current[0] if self._current else None

    def send_op(self, op: int, d: Any = None) -> None:
        self._run(self._send_raw({"op": op, "d": d}))

    def close(self, code: int) -> None:
        """Close the current connection with `code` (4014: disallowed intents, 4004: bad token …)."""

        async def close() -> None:
            with self.lock:
                ws = self._current[0] if self._current else None
            assert ws is not None, "no connection"
            await ws.close(code=code)

        self._run(close())

    def fail(self, status: int, *, retry_after: float | None = None, is_global: bool = False, times: int = 1) -> None:
        with self.lock:
            self._failures.extend([(status, retry_after, is_global)] * times)

    def posts(self) -> list[Rest]:
        with self.lock:
            return [r for r in self.rest if r.method == "POST" and r.path.endswith("/messages") and r.status == 200]

    # --- the gateway --------------------------------------------------------------------------

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        with self.lock:
            self.connections.append(request.path)
            self._current = (ws, None)
            self.lock.notify_all()
        await ws.send_json({"op": 10, "d": {"heartbeat_interval": INTERVAL_MS}})
        code: int | None = None
        while True:
            msg = await ws.receive()
            if msg.type == WSMsgType.CLOSE:
                code = int(msg.data)  # the code the client closed with (the answer is always 1000)
            if msg.type != WSMsgType.TEXT:
                break
            await self._frame(ws, json.loads(msg.data))
        with self.lock:
            self.closes.append(code)
            if self._current and self._current[0] is ws:
                self._current = None
            self.lock.notify_all()
        return ws

    async def _frame(self, ws: web.WebSocketResponse, frame: dict[str, Any]) -> None:
        op, d = frame.get("op"), frame.get("d")
        with self.lock:
            deaf = self._deaf is ws
        if op == 1:
            with self.lock:
                self.heartbeats.append((time.monotonic(), d))
                self.lock.notify_all()
            if not deaf:
                await ws.send_json({"op": 11})
        elif op == 2:
            session = _Session(uuid.uuid4().hex)
            with self.lock:
                self.identifies.append(d)
                self._sessions[session.id] = session
                self._current = (ws, session)
                self.lock.notify_all()
            ready = {"v": 10, "session_id": session.id, "resume_gateway_url": f"{self.gateway_url}/resume/",
                     "user": {"id": BOT_ID, "username": BOT_NAME, "bot": True}, "guilds": []}  # fmt: skip
            await self._dispatch("READY", ready)
        elif op == 6:
            with self.lock:
                self.resumes.append(d)
                session = self._sessions.get(d.get("session_id"))
                if session is not None:
                    self._current = (ws, session)
                self.lock.notify_all()
            if session is None:
                await ws.send_json({"op": 9, "d": False})
                return
            since = int(d.get("seq") or 0) - (1 if self.replay_overlap else 0)
            for event in [e for e in session.events if e["s"] > since]:
                await ws.send_json(event)
            await self._dispatch("RESUMED", {})

    async def _dispatch(self, event: str, data: dict[str, Any]) -> int:
        with self.lock:
            ws, session = self._current if self._current else (None, None)
            if session is None:
                raise AssertionError("no session to dispatch in")
            frame = {"op": 0, "t": event, "s": next(session.seq), "d": data}
            session.events.append(frame)
            deaf = self._deaf is ws
        if ws is not None and not deaf and not ws.closed:
            await ws.send_json(frame)
        return int(frame["s"])

    async def _send_raw(self, frame: dict[str, Any]) -> None:
        with self.lock:
            ws = self._current[0] if self._current else None
        assert ws is not None, "no connection"
        await ws.send_json(frame)

    # --- REST ---------------------------------------------------------------------------------

    async def _rest(self, request: web.Request) -> web.Response:
        path = "/" + request.match_info["path"]
        body = await request.json() if request.can_read_body else {}
        if request.headers.get("Authorization") != f"Bot {DISCORD_TOKEN}":
            return self._answer(request.method, path, body, 401, {"message": "401: Unauthorized", "code": 0})
        with self.lock:
            failure = self._failures.popleft() if self._failures else None
        if failure is not None:
            status, retry_after, is_global = failure
            payload: dict[str, Any] = {"message": "You are being rate limited.", "code": 0, "global": is_global}
            if retry_after is not None:
                payload["retry_after"] = retry_after
            headers = {"Retry-After": str(int(retry_after or 1) + 1)}
            if is_global:
                headers["X-RateLimit-Global"] = "true"
            return self._answer(request.method, path, body, status, payload, headers)
        headers = self._bucket(path)
        if headers is None:
            payload = {"message": "You are being rate limited.", "retry_after": self.bucket_window, "global": False}
            return self._answer(request.method, path, body, 429, payload, {"X-RateLimit-Scope": "user"})
        parts = path.strip("/").split("/")
        if request.method == "POST" and len(parts) == 3 and parts[2] == "messages":
            message = {"id": str(next(self._ids)), "channel_id": parts[1], "content": body.get("content", "")}
            with self.lock:
                self.messages[message["id"]] = message
            return self._answer("POST", path, body, 200, message, headers)
        if request.method == "PATCH" and len(parts) == 4 and parts[2] == "messages":
            with self.lock:
                found = self.messages.get(parts[3])
                if found is not None:
                    found["content"] = body.get("content", "")
            if found is None:
                return self._answer("PATCH", path, body, 404, {"message": "Unknown Message", "code": 10008})
            return self._answer("PATCH", path, body, 200, found, headers)
        if request.method == "GET" and len(parts) == 2 and parts[0] == "channels":
            with self.lock:
                channel = self.channels.get(parts[1])
            if channel is None:
                return self._answer("GET", path, body, 404, {"message": "Unknown Channel", "code": 10003})
            return self._answer("GET", path, body, 200, channel, headers)
        if request.method == "GET" and path == "/users/@me":
            return self._answer("GET", path, body, 200, {"id": BOT_ID, "username": BOT_NAME, "bot": True})
        return self._answer(request.method, path, body, 404, {"message": "404: Not Found", "code": 0})

    def _bucket(self, path: str) -> dict[str, str] | None:
        """A per-channel bucket of `bucket_limit` requests per `bucket_window`; None when it is exhausted."""
        key = "/".join(path.strip("/").split("/")[:2])
        now = time.monotonic()
        with self.lock:
            start, used = self._buckets.get(key, (now, 0))
            if now - start >= self.bucket_window:
                start, used = now, 0
            if used >= self.bucket_limit:
                return None
            self._buckets[key] = (start, used + 1)
            left = self.bucket_window - (now - start)
        return {
            "X-RateLimit-Limit": str(self.bucket_limit),
            "X-RateLimit-Remaining": str(self.bucket_limit - used - 1),
            "X-RateLimit-Reset-After": f"{left:.3f}",
            "X-RateLimit-Bucket": f"b-{key.replace('/', '-')}",
        }

    def _answer(
        self, method: str, path: str, body: dict[str, Any], status: int, payload: Any,
        headers: dict[str, str] | None = None,
    ) -> web.Response:  # fmt: skip
        with self.lock:
            self.rest.append(Rest(method, path, body, status))
            self.lock.notify_all()
        return web.json_response(payload, status=status, headers=headers)


def dm(text: str, *, user_id: str = "42", message_id: str | None = None, bot: bool = False) -> dict[str, Any]:
    """A `MESSAGE_CREATE` in a DM channel."""
    return {"id": message_id or str(next(_msg_ids)), "channel_id": f"7{user_id}", "type": 0, "content": text,
            "author": {"id": user_id, "username": f"user{user_id}", "bot": bot}, "mentions": []}  # fmt: skip


def guild_message(text: str, *, channel_id: str = "555", guild_id: str = "777", user_id: str = "42",
                  mention: bool = False) -> dict[str, Any]:  # fmt: skip
    content = f"<@{BOT_ID}> {text}" if mention else text
    mentions = [{"id": BOT_ID, "username": BOT_NAME, "bot": True}] if mention else []
    return {"id": str(next(_msg_ids)), "channel_id": channel_id, "guild_id": guild_id, "type": 0,
            "content": content, "author": {"id": user_id, "username": f"user{user_id}"}, "mentions": mentions,
            "member": {"nick": None}}  # fmt: skip


_msg_ids = itertools.count(1_200_000_000_000_000_000)
