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
from claw.channels.ingress import _answer
from claw.channels.platform_ingress import read_request, refuse, unavailable
from claw.channels.slack.adapter import RETRY_NUM
from claw.errors import ClawError
from claw.strict_json import JsonError, loads_strict

if TYPE_CHECKING:
    from claw.channels.manager import ChannelManager
    from claw.channels.slack.adapter import SlackAdapter

log = logging.getLogger(__name__)


async def receive(manager: ChannelManager, request: web.Request, adapter: SlackAdapter | None) -> web.Response:
    body = await read_request(request, adapter)
    if isinstance(body, web.Response):
        return body
    assert adapter is not None
    where = f"slack/{adapter.account_id}"
    try:
        adapter.verify(request.headers, body)
    except VerifyError as exc:
        return refuse(request, where, exc)
    try:
        callback = adapter.parse(loads_strict(body.decode("utf-8")))
    except (UnicodeDecodeError, JsonError, ValueError) as exc:
        return _answer(400, f"invalid event: {exc}")
    if callback.type == "url_verification":
        return web.json_response({"challenge": callback.challenge or ""})
    try:
        outcome = await adapter.take(manager, callback)  # Slack's own dedupe by event id, then the inbox's
    except ClawError as exc:  # not stored, so not acknowledged: Slack retries
        log.error("%s: could not store a message: %s", where, exc)
        return unavailable()
    fault("inbox.after_commit_before_ack")
    if request.headers.get(RETRY_NUM):
        log.info("%s: Slack's retry %s of event %s: %s", where, request.headers[RETRY_NUM], callback.event_id, outcome)
    return _answer(200, outcome, ok=True)
