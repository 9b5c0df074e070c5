"""A fake Slack on loopback, following the documented contract of the parts claw uses:

- the Web API under `/api/<method>`: `auth.test`, `chat.postMessage`, `chat.update`, `users.info` with the
  bot token, `apps.connections.open` with the app-level token (`Authorization: Bearer …`; a wrong token is
  `{"ok": false, "error": "invalid_auth"}`); `fail` makes the next calls of a method answer `429` with
  `Retry-After` and `{"ok": false, "error": "ratelimited"}` (or any status and error);
- the Events API sender (`deliver`): an `event_callback` POSTed to the app's Request URL, signed
  (`X-Slack-Signature: v0=HMAC-SHA256("v0:<ts>:<body>")`, `X-Slack-Request-Timestamp`), optionally as
  a retry (`X-Slack-Retry-Num`, `X-Slack-Retry-Reason`);
- Socket Mode at the URL `apps.connections.open` hands out: `hello` first, then envelopes
  (`events_api`, `envelope_id`, `retry_attempt`) that must be acknowledged with `{"envelope_id": …}`;
  an envelope not acknowledged within `redeliver_after` seconds, or when its connection ends, is sent
  again (`retry_attempt` + 1) on the current or next connection. Scripting: `disconnect(reason)` sends
  Slack's `disconnect` message, `go_silent` makes the connection stop answering pings and sending.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import itertools
import json
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

from tests.channels.fakes import _Threaded

BOT_TOKEN = "xoxb-1111-2222-fakeslackbottoken"
APP_TOKEN = "xapp-1-A111-3333-fakeslackapptoken"
SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
BOT_USER = "UBOT0001"
BOT_ID = "BBOT0001"
TEAM = "T0000001"


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    status: int
    ok: bool
    auth: str
    at: float = field(default_factory=time.monotonic)


@dataclass
class Envelope:
    id: str
    payload: dict[str, Any]
    attempts: int = 0
    acked_at: float | None = None
    sent_at: list[float] = field(default_factory=list)


class FakeSlack(_Threaded):
    def __init__(self, *, redeliver_after: float = 3.0) -> None:
        super().__init__()
        self.calls: list[Call] = []
        self.messages: dict[tuple[str, str], dict[str, Any]] = {}
        self.users: dict[str, dict[str, Any]] = {}
        self.envelopes: dict[str, Envelope] = {}
        self.connections: list[float] = []
        self.hellos = 0
        self.pings: list[float] = []
        self.redeliver_after = redeliver_after
        self.on_ack: Callable[[Envelope], None] | None = None
        """Called (on the fake's thread) as an ack arrives, before it is recorded: tests look at the inbox."""
        self._failures: dict[str, deque[tuple[int, str, float | None]]] = {}
        self._ts = itertools.count(1_700_000_000_000_100, 100)
        self._envelope_ids = itertools.count(1)
        self._current: web.WebSocketResponse | None = None
        self._silent: web.WebSocketResponse | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def routes(self, app: web.Application) -> None:
        app.router.add_route("*", "/api/{method}", self._api)
        app.router.add_get("/link/", self._link)

    @property
    def api_base(self) -> str:
        return f"{self.url}/api/"

    # --- scripting (thread-safe) --------------------------------------------------------------

    def fail(self, method: str, status: int = 429, error: str = "ratelimited", *, retry_after: float | None = 1.0,
             times: int = 1) -> None:  # fmt: skip
        with self.lock:
            self._failures.setdefault(method, deque()).extend([(status, error, retry_after)] * times)

    def calls_of(self, method: str, *, ok: bool | None = True) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.method == method and (ok is None or c.ok == ok)]

    def posts(self) -> list[Call]:
        return self.calls_of("chat.postMessage")

    def texts(self) -> list[str]:
        """Every message's text as it stands now (after its edits), in the order they were posted."""
        with self.lock:
            return [m["text"] for m in self.messages.values()]

    def push(self, callback: dict[str, Any]) -> str:
        """Socket Mode: send `callback` in an `events_api` envelope (held until a connection is up)."""
        envelope = Envelope(f"env-{next(self._envelope_ids)}", callback)
        with self.lock:
            self.envelopes[envelope.id] = envelope
        self._run(self._send_pending())
        return envelope.id

    def disconnect(self, reason: str = "refresh_requested") -> None:
        self._run(self._send_raw({"type": "disconnect", "reason": reason, "debug_info": {"host": "fake"}}))

    def go_silent(self) -> None:
        """The current connection stops answering pings and sending anything (a dead link)."""
        with self.lock:
            self._silent = self._current

    @property
    def connected(self) -> bool:
        with self.lock:
            return self._current is not None and self._current is not self._silent

    def unacked(self) -> list[Envelope]:
        with self.lock:
            return [e for e in self.envelopes.values() if e.acked_at is None]

    def _run(self, coro: Any) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    # --- the Web API --------------------------------------------------------------------------

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params: dict[str, Any] = dict(request.query)
        if request.content_type == "application/json":
            params.update(await request.json())
        elif request.can_read_body:
            params.update(dict(await request.post()))
        auth = request.headers.get("Authorization", "")
        wanted = APP_TOKEN if method == "apps.connections.open" else BOT_TOKEN
        if auth != f"Bearer {wanted}":
            return self._answer(method, params, auth, {"ok": False, "error": "invalid_auth"})
        with self.lock:
            queue = self._failures.get(method)
            failure = queue.popleft() if queue else None
        if failure is not None:
            status, error, retry_after = failure
            headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
            return self._answer(method, params, auth, {"ok": False, "error": error}, status, headers)
        handler = {
            "auth.test": self._auth_test, "chat.postMessage": self._post_message, "chat.update": self._update,
            "users.info": self._user_info, "apps.connections.open": self._connections_open,
        }.get(method)  # fmt: skip
        if handler is None:
            return self._answer(method, params, auth, {"ok": False, "error": "unknown_method"}, 404)
        return self._answer(method, params, auth, handler(params))

    def _auth_test(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "url": "https://claw-test.slack.com/", "team": "Claw Test", "user": "clawbot",
                "team_id": TEAM, "user_id": BOT_USER, "bot_id": BOT_ID}  # fmt: skip

    def _post_message(self, params: dict[str, Any]) -> dict[str, Any]:
        channel, text = params.get("channel"), params.get("text")
        if not channel:
            return {"ok": False, "error": "channel_not_found"}
        if not text:
            return {"ok": False, "error": "no_text"}
        if len(text) > 40_000:
            return {"ok": False, "error": "msg_too_long"}
        ts = self._next_ts()
        message = {"type": "message", "user": BOT_USER, "bot_id": BOT_ID, "text": text, "ts": ts}
        if params.get("thread_ts"):
            message["thread_ts"] = params["thread_ts"]
        with self.lock:
            self.messages[(channel, ts)] = message
        return {"ok": True, "channel": channel, "ts": ts, "message": message}

    def _update(self, params: dict[str, Any]) -> dict[str, Any]:
        key = (str(params.get("channel")), str(params.get("ts")))
        with self.lock:
            message = self.messages.get(key)
            if message is not None:
                message["text"] = params.get("text", "")
        if message is None:
            return {"ok": False, "error": "message_not_found"}
        return {"ok": True, "channel": key[0], "ts": key[1], "text": message["text"]}

    def _user_info(self, params: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            user = self.users.get(str(params.get("user")))
        return {"ok": True, "user": user} if user else {"ok": False, "error": "user_not_found"}

    def _connections_open(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/link/?ticket={next(self._envelope_ids)}"}

    def _answer(self, method: str, params: dict[str, Any], auth: str, payload: dict[str, Any], status: int = 200,
                headers: dict[str, str] | None = None) -> web.Response:  # fmt: skip
        with self.lock:
            self.calls.append(Call(method, params, status, bool(payload.get("ok")), auth))
            self.lock.notify_all()
        return web.json_response(payload, status=status, headers=headers)

    def _next_ts(self) -> str:
        n = next(self._ts)
        return f"{n // 1_000_000}.{n % 1_000_000:06d}"

    # --- Socket Mode --------------------------------------------------------------------------

    async def _link(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=False)
        await ws.prepare(request)
        with self.lock:
            self.connections.append(time.monotonic())
            self._current = ws
            self.lock.notify_all()
        await ws.send_json({"type": "hello", "num_connections": 1, "connection_info": {"app_id": "A111"},
                            "debug_info": {"host": "fake", "approximate_connection_time": 18060}})  # fmt: skip
        with self.lock:
            self.hellos += 1
        await self._send_pending()
        async for msg in ws:
            if msg.type == WSMsgType.PING:
                with self.lock:
                    self.pings.append(time.monotonic())
                    silent = self._silent is ws
                if not silent:
                    await ws.pong(msg.data)
            elif msg.type == WSMsgType.TEXT:
                self._ack(json.loads(msg.data))
        with self.lock:
            if self._current is ws:
                self._current = None
            self.lock.notify_all()
        return ws

    def _ack(self, frame: dict[str, Any]) -> None:
        with self.lock:
            envelope = self.envelopes.get(str(frame.get("envelope_id")))
        if envelope is None or envelope.acked_at is not None:
            return
        if self.on_ack is not None:
            self.on_ack(envelope)
        with self.lock:
            envelope.acked_at = time.monotonic()
            self.lock.notify_all()

    async def _send_pending(self) -> None:
        """Send every envelope not acknowledged and not in flight on this connection."""
        with self.lock:
            ws = self._current if self._current is not self._silent else None
            due = [e for e in self.envelopes.values() if e.acked_at is None and self._due(e)]
        if ws is None or ws.closed:
            return
        for envelope in due:
            envelope.attempts += 1
            envelope.sent_at.append(time.monotonic())
            await ws.send_json({"envelope_id": envelope.id, "type": "events_api", "payload": envelope.payload,
                                "accepts_response_payload": False, "retry_attempt": envelope.attempts - 1,
                                "retry_reason": "timeout" if envelope.attempts > 1 else ""})  # fmt: skip
            asyncio.get_running_loop().call_later(self.redeliver_after, self._redeliver)

    def _due(self, envelope: Envelope) -> bool:
        if not envelope.sent_at:
            return True
        since_connect = self.connections[-1] > envelope.sent_at[-1]  # sent on a connection that has ended
        return since_connect or time.monotonic() - envelope.sent_at[-1] >= self.redeliver_after - 0.01

    def _redeliver(self) -> None:
        task = asyncio.get_running_loop().create_task(self._send_pending())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send_raw(self, frame: dict[str, Any]) -> None:
        with self.lock:
            ws = self._current
        assert ws is not None, "no Socket Mode connection"
        await ws.send_json(frame)


# --- the Events API sender --------------------------------------------------------------------


def sign(body: bytes, timestamp: str, secret: str = SIGNING_SECRET) -> str:
    base = b"v0:" + timestamp.encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def deliver(url: str, callback: dict[str, Any], *, retry_num: int | None = None, secret: str = SIGNING_SECRET,
            timestamp: float | None = None, signature: str | None = None) -> tuple[int, Any, float]:  # fmt: skip
    """POST `callback` as Slack does; (status, JSON answer, seconds until the answer)."""
    body = json.dumps(callback).encode()
    stamp = str(int(time.time() if timestamp is None else timestamp))
    headers = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": stamp,
               "X-Slack-Signature": signature or sign(body, stamp, secret)}  # fmt: skip
    if retry_num is not None:
        headers |= {"X-Slack-Retry-Num": str(retry_num), "X-Slack-Retry-Reason": "http_timeout"}
    started = time.monotonic()
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null"), time.monotonic() - started
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null"), time.monotonic() - started


_event_ids = itertools.count(1)
_ts = itertools.count(1_600_000_000_000_100, 100)


def next_ts() -> str:
    n = next(_ts)
    return f"{n // 1_000_000}.{n % 1_000_000:06d}"


def message(text: str, *, channel: str = "D0000042", channel_type: str = "im", user: str = "U0000042",
            ts: str | None = None, thread_ts: str | None = None, kind: str = "message",
            **extra: Any) -> dict[str, Any]:  # fmt: skip
    """An `event_callback` carrying one message event (a DM by default)."""
    event: dict[str, Any] = {"type": kind, "channel": channel, "user": user, "text": text, "ts": ts or next_ts(),
                             "event_ts": ts or next_ts(), "team": TEAM}  # fmt: skip
    if kind == "message":
        event["channel_type"] = channel_type
    if thread_ts:
        event["thread_ts"] = thread_ts
    event.update(extra)
    return {"token": "legacy-verification-token", "team_id": TEAM, "api_app_id": "A111", "event": event,
            "type": "event_callback", "event_id": f"Ev{next(_event_ids):08d}", "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM, "user_id": BOT_USER, "is_bot": True}]}  # fmt: skip


def mention(text: str, *, channel: str = "C0000555", **kw: Any) -> dict[str, Any]:
    """An `app_mention` in a channel (the text starts with the bot's mention, as Slack writes it)."""
    return message(f"<@{BOT_USER}> {text}", channel=channel, kind="app_mention", **kw)
