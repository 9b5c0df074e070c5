"""HTTP ingress of event-triggered automations, on the gateway's port (no gateway token: each sender proves
itself).

`POST /automations/webhook/<name>` fires the job `--on webhook:<name>`. The request is signed as the webhook
channel's are: `X-Claw-Timestamp: <unix seconds>` and `X-Claw-Signature: sha256=<hex HMAC-SHA256 of
"<timestamp>.<raw body>">`, keyed with the secret `automations add` printed; a timestamp more than 300 s off
is refused. Replays are refused: each event is remembered (by `X-Claw-Event-Id` when the sender gives one, so
a retry of the same event runs once, else by its signature) for longer than any tolerance.

`POST /automations/gmail` takes Gmail's Pub/Sub pushes (see `claw.automations.gmail_push`).

In order, before anything runs: no query string (secrets do not travel in URLs), the body capped, the sender
verified; then the event is claimed in the ledger (a replay stops here), and the run starts after the answer.
The body reaches the agent wrapped as untrusted content, after the job's own message.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import re
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from aiohttp import web

from claw.automations.job import Job
from claw.automations.trigger_refusal import Refused
from claw.untrusted import wrap_untrusted

if TYPE_CHECKING:
    from claw.automations.gmail_push import GoogleKeys
    from claw.automations.manager import AutomationManager

log = logging.getLogger(__name__)

MAX_EVENT_BYTES = 256 * 1024
TOLERANCE_SECONDS = 300
SIGNATURE_HEADER = "X-Claw-Signature"
TIMESTAMP_HEADER = "X-Claw-Timestamp"
EVENT_ID_HEADER = "X-Claw-Event-Id"
_HEX = re.compile(r"^[0-9a-f]{64}$")


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The `X-Claw-Signature` value for `body` sent at `timestamp` (the webhook channel's scheme)."""
    digest = hmac.new(secret.encode("utf-8"), timestamp.encode("ascii") + b"." + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


def verify_signed(secret: str | None, headers: Mapping[str, str], body: bytes, now: float) -> str:
    """Check the signature and its timestamp; returns the hex digest (the event's key when it has no id)."""
    if not secret:
        raise Refused(503, "this trigger has no key")
    given, stamp = (headers.get(SIGNATURE_HEADER) or "").strip(), headers.get(TIMESTAMP_HEADER) or ""
    if not given:
        raise Refused(401, "missing signature")
    if not stamp.isascii() or not stamp.isdigit() or len(stamp) > 12:
        raise Refused(401, "missing or invalid timestamp")
    if abs(now - int(stamp)) > TOLERANCE_SECONDS:
        raise Refused(401, "timestamp outside tolerance")
    scheme, _, digest = given.partition("=")
    if scheme != "sha256" or not _HEX.match(digest):
        raise Refused(401, "invalid signature")
    if not hmac.compare_digest(signature(secret, stamp, body).encode("ascii"), given.encode("ascii")):
        raise Refused(401, "invalid signature")
    return digest


class EventIngress:
    def __init__(self, manager: Callable[[], AutomationManager]) -> None:
        self._manager_of = manager
        self._google_keys: GoogleKeys | None = None  # Google's signing keys, fetched on the first Gmail push

    async def webhook(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        try:
            body = await _body(request)
            job = await self._job(f"webhook:{name}")
            digest = verify_signed(job.secret, request.headers, body, time.time())
            if not job.enabled:
                raise Refused(409, "this automation is disabled")
            try:
                text = body.decode("utf-8")
            except UnicodeDecodeError:
                raise Refused(400, "body is not valid UTF-8") from None
            event_id = (request.headers.get(EVENT_ID_HEADER) or "").strip()[:256]
            key = f"id:{event_id}" if event_id else f"sig:{digest}"
            event = wrap_untrusted(text, f"Webhook {name}", notice=True)
            return await self._fire(job, key, event, "webhook")
        except Refused as exc:
            log.warning("automations webhook %s: refused a request from %s: %s", name, request.remote, exc.reason)
            return _answer(exc.status, exc.reason)

    async def gmail(self, request: web.Request) -> web.Response:
        from claw.automations.gmail_push import GmailPush

        manager = self._manager_of()
        try:
            body = await _body(request)
            push = await GmailPush.verified(request.headers, body, manager.host.config.automations, self._keys())
            job = await manager.trigger_job(f"gmail:{push.address}")
            if job is None or not job.enabled:  # acknowledged: Pub/Sub would redeliver it for a week otherwise
                return _answer(200, "ignored: no enabled automation fires on this mailbox", ok=True)
            return await self._fire(job, f"history:{push.history_id}", push.event(), "gmail")
        except Refused as exc:
            log.warning("automations gmail: refused a push from %s: %s", request.remote, exc.reason)
            return _answer(exc.status, exc.reason)

    def _keys(self) -> GoogleKeys:
        from claw.automations.gmail_push import GoogleKeys

        if self._google_keys is None:
            self._google_keys = GoogleKeys()
        return self._google_keys

    async def _job(self, trigger: str) -> Job:
        job = await self._manager_of().trigger_job(trigger)
        if job is None:
            raise Refused(404, f"no automation fires on {trigger}")
        return job

    async def _fire(self, job: Job, key: str, event: str, trigger: str) -> web.Response:
        run = await self._manager_of().fire(job, event_key=key, event=event, trigger=trigger)
        if run is None:
            return _answer(200, "duplicate: this event was taken before", ok=True)
        if run.status == "skipped":
            return _answer(200, "skipped: the previous run is still going", ok=True, run=run.id)
        log.info("automation %s (%s) fired by %s: ledger run %s", job.name, job.id, job.trigger, run.id)
        return _answer(202, "accepted", ok=True, run=run.id)


async def _body(request: web.Request) -> bytes:
    if request.query_string:
        raise Refused(400, "query strings are not accepted; send credentials in headers")
    if request.content_length is not None and request.content_length > MAX_EVENT_BYTES:
        raise Refused(413, f"payload too large (limit {MAX_EVENT_BYTES} bytes)")
    chunks, size = [], 0
    while chunk := await request.content.read(64 * 1024):
        size += len(chunk)
        if size > MAX_EVENT_BYTES:
            raise Refused(413, f"payload too large (limit {MAX_EVENT_BYTES} bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


def _answer(status: int, text: str, *, ok: bool = False, **extra: Any) -> web.Response:
    body: dict[str, Any] = {"ok": True, "status": text, **extra} if ok else {"ok": False, "error": text}
    return web.json_response(body, status=status)
