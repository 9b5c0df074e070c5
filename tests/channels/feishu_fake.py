"""A fake Feishu open platform on loopback, following the documented contract: the tenant_access_token
endpoint (with expiry, and tokens the test can revoke), `bot/v3/info`, message reply / create / patch
(deduped on `uuid`), error codes scripted per path (the rate-limit code 99991400 …); and the sender's
side of the event subscription: `event_request` builds a v2 event, encrypted with the Encrypt Key and
signed as the platform signs it."""

from __future__ import annotations

import itertools
import json
import time
import urllib.request
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from claw.channels.feishu_crypto import encrypt, signature
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
