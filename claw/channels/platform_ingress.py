"""What every chat platform's HTTP route (`POST /<platform>/<account>`) does around its own parsing.

Before anything is read: the account must exist, no query string (secrets do not travel in URLs), the
declared size and then the bytes actually read are capped (`read_request`). A request the adapter refuses
is logged and, when it carried a wrong credential, counted by the server's failed-auth limiter (`refuse`);
an adapter that opens its requests itself (signature, decryption) gets both steps in one (`read_opened`).
At the end the messages are stored in the inbox and only then answered `200`, a redelivery too, storing
nothing; what could not be stored is answered 503, so the platform delivers it again (`store_then_answer`).
The platform's own `http_route` (feishu, dingtalk, slack) does what lies between: its signature,
its decryption, its challenge.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from aiohttp import web

from claw.channels.adapter import VerifyError
from claw.channels.faults import fault
from claw.channels.inbound import Inbound
from claw.channels.ingress import _answer, _read_capped
from claw.credential_report import report_bad_credential
from claw.errors import ClawError

if TYPE_CHECKING:
    from claw.channels.manager import ChannelManager

log = logging.getLogger(__name__)

MAX_BODY = 1024 * 1024
T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

Receive = Callable[["ChannelManager", web.Request, Any], Awaitable[web.Response]]
"""A platform's handler: (the manager, the request, its account's adapter or None) → the answer."""


def route(manager: ChannelManager, channel: str, receive: Receive) -> Callable[[web.Request], Awaitable[web.Response]]:
    """The aiohttp handler for `POST /<channel>/{account}`: `receive` with the account's adapter."""

    async def handle(request: web.Request) -> web.Response:
        return await receive(manager, request, manager.adapter(channel, request.match_info["account"]))

    return handle


async def read_request(request: web.Request, adapter: object | None, limit: int = MAX_BODY) -> bytes | web.Response:
    """The raw body, or the answer that refuses the request before it was read."""
    if adapter is None:
        return _answer(404, "no such account")
    if request.query_string:
        return _answer(400, "query strings are not accepted")
    too_big = _answer(413, f"payload too large (limit {limit} bytes)")
    if request.content_length is not None and request.content_length > limit:
        return too_big
    body = await _read_capped(request, limit)
    return too_big if body is None else body


class Opens(Protocol[T_co]):
    """An adapter that opens its platform's raw request: checks its signature and freshness, decrypts it."""

    account_id: str

    def open(self, headers: Mapping[str, str], body: bytes) -> T_co: ...


async def read_opened(request: web.Request, adapter: Opens[T] | None, channel: str) -> T | web.Response:
    """The request read (`read_request`) and opened by the adapter, or the answer that refuses it (`refuse`)."""
    body = await read_request(request, adapter)
    if isinstance(body, web.Response):
        return body
    assert adapter is not None
    try:
        return adapter.open(request.headers, body)
    except VerifyError as exc:
        return refuse(request, f"{channel}/{adapter.account_id}", exc)


def refuse(request: web.Request, where: str, exc: VerifyError) -> web.Response:
    log.warning("%s: refused a request from %s: %s", where, request.remote, exc.reason)
    if exc.presented is not None:  # counted by the server's limiter, which may answer 429 instead
        report_bad_credential(request, exc.presented)
    return _answer(exc.status, exc.reason)


async def store_then_answer(manager: ChannelManager, channel: str, account_id: str, inbound: Sequence[Inbound],
                            where: str) -> web.Response:  # fmt: skip
    """Commit `inbound` to the inbox, then answer: `accepted`, `duplicate` (a redelivery), `ignored` (nothing
    to store), or 503 when the store failed (not acknowledged, so the platform retries)."""
    fault("webhook.before_inbox_commit")
    try:
        stored = await manager.accept(channel, account_id, inbound)
    except ClawError as exc:
        log.error("%s: could not store a message: %s", where, exc)
        return unavailable()
    fault("inbox.after_commit_before_ack")
    if inbound and not any(stored):
        return _answer(200, "duplicate", ok=True)
    return _answer(200, "accepted" if inbound else "ignored", ok=True)


def unavailable() -> web.Response:
    return _answer(503, "temporarily unavailable; retry later")
