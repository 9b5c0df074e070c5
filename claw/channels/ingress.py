"""HTTP ingress on the gateway's port for an adapter that verifies the raw request and normalises its JSON
itself: `POST /hooks/<name>` (the webhook channel) and `POST /telegram/<account>` (Telegram in webhook mode),
each declared by its platform (`claw/channels/<platform>/platform.py`) with `Ingress.route`.

In order, before anything is parsed: no query string (secrets do not travel in URLs), the
declared size and then the bytes actually read are capped, and the adapter verifies the raw
headers and body. Then the JSON is parsed strictly, normalised, and stored in the inbox under
its dedupe key — and only then is the sender answered `200`. A redelivery is answered `200`
too (`"duplicate"`), and stored nothing. Processing happens after the answer.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import web

from claw.channels.adapter import ChannelAdapter, VerifyError
from claw.channels.faults import fault
from claw.credential_report import report_bad_credential
from claw.errors import ClawError
from claw.strict_json import JsonError, loads_strict

if TYPE_CHECKING:
    from claw.channels.manager import ChannelManager

log = logging.getLogger(__name__)


class Ingress:
    def __init__(self, manager: ChannelManager) -> None:
        self.m = manager

    def route(
        self, channel: str, key: str, limit: Callable[[], int]
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        """The aiohttp handler for a route whose path names the account as `{key}`; `limit()` is the body cap."""

        async def handle(request: web.Request) -> web.Response:
            adapter = self.m.adapter(channel, request.match_info[key])
            return await self._receive(request, adapter, limit())

        return handle

    async def _receive(self, request: web.Request, adapter: ChannelAdapter | None, limit: int) -> web.Response:
        if adapter is None:
            return _answer(404, "no such hook")
        if request.query_string:
            return _answer(400, "query strings are not accepted; send credentials in headers")
        if request.content_length is not None and request.content_length > limit:
            return _answer(413, f"payload too large (limit {limit} bytes)")
        body = await _read_capped(request, limit)
        if body is None:
            return _answer(413, f"payload too large (limit {limit} bytes)")
        where = f"{adapter.channel}/{adapter.account_id}"
        try:
            adapter.verify(request.headers, body)
        except VerifyError as exc:
            log.warning("%s: refused a request from %s: %s", where, request.remote, exc.reason)
            if exc.presented is not None:  # counted by the server's limiter, which may answer 429 instead
                report_bad_credential(request, exc.presented)
            return _answer(exc.status, exc.reason)
        try:
            payload = loads_strict(body.decode("utf-8"))
        except UnicodeDecodeError:
            return _answer(400, "body is not valid UTF-8")
        except JsonError as exc:
            return _answer(400, f"invalid JSON: {exc}")
        try:
            inbound = adapter.normalize(payload)
        except ValueError as exc:
            return _answer(400, f"invalid body: {exc}")
        fault("webhook.before_inbox_commit")
        try:
            stored = await self.m.accept(adapter.channel, adapter.account_id, inbound)
        except ClawError as exc:  # not stored, so not acknowledged: the sender retries later
            log.error("%s: could not store a message: %s", where, exc)
            return _answer(503, "temporarily unavailable; retry later")
        fault("inbox.after_commit_before_ack")
        if inbound and not any(stored):
            return _answer(200, "duplicate", ok=True)
        return _answer(200, "accepted" if inbound else "ignored", ok=True)


async def _read_capped(request: web.Request, limit: int) -> bytes | None:
    """The body, or None as soon as it grows past `limit` (nothing more is buffered)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await request.content.read(64 * 1024)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)


def _answer(status: int, text: str, *, ok: bool = False) -> web.Response:
    body: dict[str, Any] = {"ok": True, "status": text} if ok else {"ok": False, "error": text}
    return web.json_response(body, status=status)
