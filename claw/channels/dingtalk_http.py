"""`POST /dingtalk/<account>`: DingTalk's HTTP callback for a robot (an account in `mode = "http"`).

Order: the size cap and no query string (as every ingress), then the adapter opens the request (the
`timestamp` + `sign` headers within the window, the body a robot message). The message is normalised
and stored in the inbox under its `msgId`, and only then answered `200` — a redelivery too, storing
nothing. DingTalk retries anything else. The reply goes out later, through the outbox.
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
    from claw.channels.dingtalk import DingTalkAdapter
    from claw.channels.manager import ChannelManager

log = logging.getLogger(__name__)

MAX_BODY = 1024 * 1024


class DingTalkIngress:
    def __init__(self, manager: ChannelManager) -> None:
        self.m = manager

    async def receive(self, request: web.Request) -> web.Response:
        adapter = self.m.adapter("dingtalk", request.match_info["account"])
        return await receive(self.m, request, adapter)  # type: ignore[arg-type]


async def receive(manager: ChannelManager, request: web.Request, adapter: DingTalkAdapter | None) -> web.Response:
    if adapter is None:
        return _answer(404, "no such account")
    if request.query_string:
        return _answer(400, "query strings are not accepted")
    if request.content_length is not None and request.content_length > MAX_BODY:
        return _answer(413, f"payload too large (limit {MAX_BODY} bytes)")
    body = await _read_capped(request, MAX_BODY)
    if body is None:
        return _answer(413, f"payload too large (limit {MAX_BODY} bytes)")
    where = f"dingtalk/{adapter.account_id}"
    try:
        message = adapter.open(request.headers, body)
    except VerifyError as exc:
        log.warning("%s: refused a request from %s: %s", where, request.remote, exc.reason)
        if exc.presented is not None:
            report_bad_credential(request, exc.presented)
        return _answer(exc.status, exc.reason)
    inbound = adapter.normalize(message)
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
