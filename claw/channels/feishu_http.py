"""`POST /feishu/<account>`: Feishu's event subscription on the gateway's port.

Order: the size caps and no query string (as every ingress), then the adapter opens the request
(signature, timestamp, decryption, verification token). A `url_verification` is answered with its
challenge; an event is normalised and stored in the inbox under its `event_id`, and only then
answered `200` — a redelivery too, storing nothing. The platform retries anything else.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from aiohttp import web

from claw.channels.adapter import VerifyError
from claw.channels.faults import fault
from claw.channels.ingress import _answer, _read_capped
from claw.errors import ClawError
from claw.server.credential_report import report_bad_credential

if TYPE_CHECKING:
    from claw.channels.feishu import FeishuAdapter
    from claw.channels.manager import ChannelManager

log = logging.getLogger(__name__)

MAX_BODY = 1024 * 1024


class FeishuIngress:
    def __init__(self, manager: ChannelManager) -> None:
        self.m = manager

    async def receive(self, request: web.Request) -> web.Response:
        adapter = self.m.adapter("feishu", request.match_info["account"])
        return await receive(self.m, request, adapter)  # type: ignore[arg-type]


async def receive(manager: ChannelManager, request: web.Request, adapter: FeishuAdapter | None) -> web.Response:
    if adapter is None:
        return _answer(404, "no such account")
    if request.query_string:
        return _answer(400, "query strings are not accepted")
    if request.content_length is not None and request.content_length > MAX_BODY:
        return _answer(413, f"payload too large (limit {MAX_BODY} bytes)")
    body = await _read_capped(request, MAX_BODY)
    if body is None:
        return _answer(413, f"payload too large (limit {MAX_BODY} bytes)")
    where = f"feishu/{adapter.account_id}"
    try:
        envelope = adapter.open(request.headers, body)
    except VerifyError as exc:
        log.warning("%s: refused a request from %s: %s", where, request.remote, exc.reason)
        if exc.presented is not None:
            report_bad_credential(request, exc.presented)
        return _answer(exc.status, exc.reason)
    if envelope.type == "url_verification":
        return web.json_response({"challenge": envelope.challenge or ""})
    try:
        inbound = adapter.normalize(envelope)
    except ValueError as exc:
        return _answer(400, f"invalid event: {exc}")
    inbound = await adapter.with_names(inbound)
    fault("webhook.before_inbox_commit")
    try:
        stored = await manager.accept(adapter.channel, adapter.account_id, inbound)
    except ClawError as exc:  # not stored, so not acknowledged: the platform retries
        log.error("%s: could not store a message: %s", where, exc)
        return _answer(503, "temporarily unavailable; retry later")
    fault("inbox.after_commit_before_ack")
    if inbound and not any(stored):
        return _answer(200, "duplicate", ok=True)
    return _answer(200, "accepted" if inbound else "ignored", ok=True)
