"""`POST /slack/<account>`: Slack's Events API on the gateway's port (the Request URL given to Slack).

Order: the size caps and no query string (as every ingress), then the v0 signature and timestamp on
the raw bytes (`SlackAdapter.verify`), then strict JSON. A `url_verification` is answered with its
challenge; an event is stored in the inbox and only then answered `200` (Slack wants an answer
within 3 s and retries otherwise, with `X-Slack-Retry-Num`). A retry goes through the same path —
its first delivery may have died before the commit — and stores nothing when it is a duplicate.
Anything not stored is answered with an error, so Slack delivers it again.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from aiohttp import web

from claw.channels.adapter import VerifyError
from claw.channels.faults import fault
from claw.channels.ingress import _answer, _read_capped
from claw.channels.slack import RETRY_NUM
from claw.errors import ClawError
from claw.server.credential_report import report_bad_credential
from claw.strict_json import JsonError, loads_strict

if TYPE_CHECKING:
    from claw.channels.manager import ChannelManager
    from claw.channels.slack import SlackAdapter

log = logging.getLogger(__name__)

MAX_BODY = 1024 * 1024


class SlackIngress:
    def __init__(self, manager: ChannelManager) -> None:
        self.m = manager

    async def receive(self, request: web.Request) -> web.Response:
        adapter = self.m.adapter("slack", request.match_info["account"])
        return await receive(self.m, request, adapter)  # type: ignore[arg-type]


async def receive(manager: ChannelManager, request: web.Request, adapter: SlackAdapter | None) -> web.Response:
    if adapter is None:
        return _answer(404, "no such account")
    if request.query_string:
        return _answer(400, "query strings are not accepted")
    if request.content_length is not None and request.content_length > MAX_BODY:
        return _answer(413, f"payload too large (limit {MAX_BODY} bytes)")
    body = await _read_capped(request, MAX_BODY)
    if body is None:
        return _answer(413, f"payload too large (limit {MAX_BODY} bytes)")
    where = f"slack/{adapter.account_id}"
    try:
        adapter.verify(request.headers, body)
    except VerifyError as exc:
        log.warning("%s: refused a request from %s: %s", where, request.remote, exc.reason)
        if exc.presented is not None:
            report_bad_credential(request, exc.presented)
        return _answer(exc.status, exc.reason)
    try:
        callback = adapter.parse(loads_strict(body.decode("utf-8")))
    except (UnicodeDecodeError, JsonError, ValueError) as exc:
        return _answer(400, f"invalid event: {exc}")
    if callback.type == "url_verification":
        return web.json_response({"challenge": callback.challenge or ""})
    try:
        outcome = await adapter.take(manager, callback)
    except ClawError as exc:  # not stored, so not acknowledged: Slack retries
        log.error("%s: could not store a message: %s", where, exc)
        return _answer(503, "temporarily unavailable; retry later")
    fault("inbox.after_commit_before_ack")
    if request.headers.get(RETRY_NUM):
        log.info("%s: Slack's retry %s of event %s: %s", where, request.headers[RETRY_NUM], callback.event_id, outcome)
    return _answer(200, outcome, ok=True)
