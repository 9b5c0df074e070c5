"""Real peers on loopback for the channel tests, each an aiohttp server on its own thread and loop
(so that a `claw gateway run` subprocess can talk to them as well as in-process gateways):

- `FakeTelegram`: the Bot API subset claw uses — getMe, getUpdates (offset, long-poll timeout),
  sendMessage, editMessageText, setWebhook, deleteWebhook — recording every call, and able to fail
  the next calls of a method with any status (429 with `retry_after`, 5xx, 403 …).
- `ReplyReceiver`: where webhook replies are POSTed; records each, dedupes on `idempotencyKey` as a
  real receiver would, and can answer the next requests with chosen statuses.
- `Recorder`: a listener that answers every request `200 {"errcode": 0}` and records it, to prove that
  claw never called a URL it was handed by a forged message.
- `post_signed`: a webhook sender (HMAC-signed POST, retried like a provider when asked).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
import time
import urllib.error
import urllib.request
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from claw.channels.webhook.adapter import sign

BOT_TOKEN = "123456:TEST-token-abcdefghijklmnop"
BOT_ID = 123456
BOT_USERNAME = "claw_test_bot"


class _Threaded:
    """An aiohttp app served on 127.0.0.1:<ephemeral> from a background thread."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    def routes(self, app: web.Application) -> None:
        raise NotImplementedError

    def start(self) -> _Threaded:
        ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve(ready)), daemon=True)
        self._thread.start()
        assert ready.wait(10), "fake server did not start"
        return self

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _serve(self, ready: threading.Event) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        app = web.Application()
        self.routes(app)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5, handler_cancellation=True)
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        self.port = runner.addresses[0][1]
        ready.set()
        try:
            await self._stop.wait()
        finally:
            await runner.cleanup()

    def wait_until(self, predicate: Callable[[], Any], timeout: float = 60.0, what: str = "condition") -> Any:
        deadline = time.monotonic() + timeout
        with self.lock:
            while not (value := predicate()):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"timed out waiting for {what}")
                self.lock.wait(min(left, 0.1))
            return value


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    at: float = field(default_factory=time.monotonic)


class FakeTelegram(_Threaded):
    def __init__(self, token: str = BOT_TOKEN) -> None:
        super().__init__()
        self.token = token
        self.calls: list[Call] = []
        self.updates: list[dict[str, Any]] = []
        self.failures: dict[str, deque[tuple[int, str, float | None, int | None]]] = {}
        self.texts: dict[tuple[int, int], str] = {}
        self._update_ids = itertools.count(1000)
        self._message_ids = itertools.count(5000)
        self._wake: asyncio.Event | None = None

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/bot{token}/{method}", self._handle)

    @property
    def api_base(self) -> str:
        return self.url

    # --- scripting (thread-safe) --------------------------------------------------------------

    def push(self, update: dict[str, Any]) -> int:
        """Queue an update for getUpdates (an `update_id` is added unless given); returns its id."""
        with self.lock:
            update = {"update_id": next(self._update_ids), **update}
            self.updates.append(update)
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)
        return int(update["update_id"])

    def fail(
        self, method: str, status: int, description: str, *, retry_after: float | None = None, times: int = 1,
        chat_id: int | None = None,
    ) -> None:  # fmt: skip
        """The next `times` calls of `method` (to `chat_id` only, if given) fail with `status`."""
        with self.lock:
            entry = (status, description, retry_after, chat_id)
            self.failures.setdefault(method, deque()).extend([entry] * times)

    def calls_of(self, method: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.method == method]

    def wait_calls(self, method: str, n: int, timeout: float = 60.0) -> list[Call]:
        return self.wait_until(lambda: (c := self.calls_of(method)) and len(c) >= n and c, timeout, f"{n} {method}")

    # --- the API ------------------------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.Response:
        if self._wake is None:
            self._wake = asyncio.Event()
        method = request.match_info["method"]
        if request.match_info["token"] != self.token:
            return web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401)
        params = await request.json() if request.can_read_body else {}
        with self.lock:
            self.calls.append(Call(method, params))
            self.lock.notify_all()
            queued = self.failures.get(method)
            failure = None
            if queued and queued[0][3] in (None, params.get("chat_id")):
                failure = queued.popleft()
        if failure is not None:
            status, description, retry_after, _chat = failure
            body: dict[str, Any] = {"ok": False, "error_code": status, "description": description}
            if retry_after is not None:
                body["parameters"] = {"retry_after": retry_after}
            return web.json_response(body, status=status)
        handler = getattr(self, f"_{method}", None)
        if handler is None:
            return web.json_response({"ok": False, "error_code": 404, "description": "Not Found"}, status=404)
        return await handler(params)

    def _ok(self, result: Any) -> web.Response:
        return web.json_response({"ok": True, "result": result})

    async def _getMe(self, params: dict[str, Any]) -> web.Response:  # noqa: N802
        return self._ok({"id": BOT_ID, "is_bot": True, "first_name": "Claw", "username": BOT_USERNAME})

    async def _deleteWebhook(self, params: dict[str, Any]) -> web.Response:  # noqa: N802
        return self._ok(True)

    async def _setWebhook(self, params: dict[str, Any]) -> web.Response:  # noqa: N802
        return self._ok(True)

    async def _getUpdates(self, params: dict[str, Any]) -> web.Response:  # noqa: N802
        offset = int(params.get("offset") or 0)
        deadline = time.monotonic() + float(params.get("timeout") or 0)
        assert self._wake is not None
        while True:
            with self.lock:
                self.updates = [u for u in self.updates if u["update_id"] >= offset]  # confirmed ones go
                ready = list(self.updates)
                self._wake.clear()
            if ready or time.monotonic() >= deadline:
                return self._ok(ready)
            try:
                async with asyncio.timeout(deadline - time.monotonic()):
                    await self._wake.wait()
            except TimeoutError:
                pass

    async def _sendMessage(self, params: dict[str, Any]) -> web.Response:  # noqa: N802
        message_id = next(self._message_ids)
        with self.lock:
            self.texts[(int(params["chat_id"]), message_id)] = params["text"]
        return self._ok({"message_id": message_id, "chat": {"id": params["chat_id"]}, "text": params["text"]})

    async def _editMessageText(self, params: dict[str, Any]) -> web.Response:  # noqa: N802
        key = (int(params["chat_id"]), int(params["message_id"]))
        with self.lock:
            if key not in self.texts:
                return _bad_request("message to edit not found")
            if self.texts[key] == params["text"]:
                return _bad_request("message is not modified: specified new message content is the same")
            self.texts[key] = params["text"]
        return self._ok({"message_id": key[1], "text": params["text"]})


def _bad_request(description: str) -> web.Response:
    body = {"ok": False, "error_code": 400, "description": f"Bad Request: {description}"}
    return web.json_response(body, status=400)


def private_message(text: str, *, user_id: int = 42, first_name: str = "Ada", message_id: int | None = None,
                    entities: list[dict[str, Any]] | None = None, is_bot: bool = False) -> dict[str, Any]:  # fmt: skip
    """An update carrying a private-chat text message from `user_id`."""
    msg: dict[str, Any] = {
        "message_id": message_id or next(_ids),
        "date": int(time.time()),
        "chat": {"id": user_id, "type": "private", "first_name": first_name},
        "from": {"id": user_id, "is_bot": is_bot, "first_name": first_name},
        "text": text,
    }
    if entities:
        msg["entities"] = entities
    return {"message": msg}


def group_message(text: str, *, chat_id: int = -100777, user_id: int = 42, thread_id: int | None = None,
                  message_id: int | None = None, mention: bool = False,
                  reply_to_bot: bool = False) -> dict[str, Any]:  # fmt: skip
    """An update carrying a supergroup message (in forum topic `thread_id` if given)."""
    if mention:
        text = f"@{BOT_USERNAME} {text}"
    msg: dict[str, Any] = {
        "message_id": message_id or next(_ids),
        "date": int(time.time()),
        "chat": {"id": chat_id, "type": "supergroup", "title": "Team", "is_forum": thread_id is not None},
        "from": {"id": user_id, "is_bot": False, "first_name": f"User{user_id}"},
        "text": text,
    }
    if mention:
        msg["entities"] = [{"type": "mention", "offset": 0, "length": len(BOT_USERNAME) + 1}]
    if thread_id is not None:
        msg["message_thread_id"] = thread_id
        msg["is_topic_message"] = True
    if reply_to_bot:
        msg["reply_to_message"] = {"message_id": 1, "chat": msg["chat"], "from": {"id": BOT_ID, "is_bot": True,
                                                                                  "first_name": "Claw"}}  # fmt: skip
    return {"message": msg}


_ids = itertools.count(1)


@dataclass
class Received:
    headers: dict[str, str]
    body: dict[str, Any]
    raw: bytes
    at: float = field(default_factory=time.monotonic)


class ReplyReceiver(_Threaded):
    """Receives webhook replies at `/replies`."""

    def __init__(self) -> None:
        super().__init__()
        self.received: list[Received] = []
        self.statuses: deque[tuple[int, dict[str, str]]] = deque()

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/replies", self._reply)

    @property
    def reply_url(self) -> str:
        return f"{self.url}/replies"

    def answer_next(self, status: int, *, times: int = 1, headers: dict[str, str] | None = None) -> None:
        with self.lock:
            self.statuses.extend([(status, headers or {})] * times)

    def unique(self) -> list[dict[str, Any]]:
        """Each delivered reply once (a repeat of an `idempotencyKey` is the same reply), in arrival order."""
        with self.lock:
            seen: dict[str, dict[str, Any]] = {}
            for r in self.received:
                seen.setdefault(r.body["idempotencyKey"], r.body)
            return list(seen.values())

    def wait_unique(self, n: int, timeout: float = 60.0) -> list[dict[str, Any]]:
        return self.wait_until(lambda: len(u := self.unique()) >= n and u, timeout, f"{n} replies")

    async def _reply(self, request: web.Request) -> web.Response:
        raw = await request.read()
        with self.lock:
            self.received.append(Received(dict(request.headers), json.loads(raw), raw))
            self.lock.notify_all()
            status, headers = self.statuses.popleft() if self.statuses else (200, {})
        return web.json_response({"ok": status < 300}, status=status, headers=headers)


class Recorder(_Threaded):
    """Answers any method on any path `200 {"errcode": 0, "errmsg": "ok"}` (a success to DingTalk's and most
    platforms' clients, so a call that should not happen is not hidden by a fallback) and records it."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[tuple[str, str, bytes]] = []
        """(method, path with query, body) of each request, in arrival order."""

    def routes(self, app: web.Application) -> None:
        app.router.add_route("*", "/{tail:.*}", self._any)

    async def _any(self, request: web.Request) -> web.Response:
        body = await request.read()
        with self.lock:
            self.requests.append((request.method, request.path_qs, body))
            self.lock.notify_all()
        return web.json_response({"errcode": 0, "errmsg": "ok"})


def signed_request(url: str, secret: str, body: bytes, *, timestamp: int | None = None,
                   signature: str | None = None) -> urllib.request.Request:  # fmt: skip
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    headers = {
        "Content-Type": "application/json",
        "X-Claw-Timestamp": stamp,
        "X-Claw-Signature": signature if signature is not None else sign(secret, stamp, body),
    }
    return urllib.request.Request(url, data=body, method="POST", headers=headers)


def post(request: urllib.request.Request, timeout: float = 10.0) -> tuple[int, dict[str, Any]]:
    """(status, JSON body); raises OSError when the connection fails (the gateway died)."""
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 (loopback)
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


def post_signed(url: str, secret: str, payload: dict[str, Any] | bytes, **kw: Any) -> tuple[int, dict[str, Any]]:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return post(signed_request(url, secret, body, **kw))
