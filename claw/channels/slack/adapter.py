"""The Slack channel: one Slack app's bot per account, receiving by the Events API (Slack POSTs to the
gateway's `/slack/<account>`, see `http_route`) or by Socket Mode (`socket_mode`: the gateway dials
Slack), replying over the Web API (`api`, on `slack_sdk`).

Both delivery styles end in `take`: the event is normalised (`wire`; the sender's display name
from `users.info`, cached), stored in the inbox, and only then acknowledged — an HTTP `200`, or the
envelope's ack. A redelivery (`X-Slack-Retry-Num`, an unacknowledged envelope) or a repeated
`event_id` stores nothing: recent event ids are remembered, and the inbox's key (`slack|account|
channel|ts`) catches the rest, across restarts too. Retries are never dropped unseen, because the first
delivery may have died before its commit.

Replies are mrkdwn (`render.to_slack_mrkdwn`), split under `maxMessageChars`, sent with
`chat.postMessage` (into the thread for a message in a thread), edited with `chat.update` while
streaming; Slack has no idempotency key, so a send that may have arrived is never resent blindly.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError
from slack_sdk.signature import Clock, SignatureVerifier

from claw.channels.access import AccessPolicy
from claw.channels.adapter import ChannelLimits, SendError, Sent, VerifyError
from claw.channels.faults import fault
from claw.channels.inbound import Inbound
from claw.channels.inbox_batch import InboxBatch
from claw.channels.slack.api import SlackApi, SlackError
from claw.channels.slack.socket_mode import SocketMode
from claw.channels.slack.wire import CHANNEL, BotIdentity, SlCallback, display_name, is_message_for_agent, to_inbound
from claw.channels.tasks import cancel_and_wait
from claw.channels.validation import first_problem
from claw.errors import UsageError
from claw.settings.slack import SlackAccount

if TYPE_CHECKING:
    from claw.channels.host import ChannelHost

log = logging.getLogger(__name__)

TIMESTAMP, SIGNATURE, RETRY_NUM = "X-Slack-Request-Timestamp", "X-Slack-Signature", "X-Slack-Retry-Num"
TOLERANCE_SECONDS = 300.0
"""Slack's own advice: refuse a request whose timestamp is more than five minutes off (a replay)."""
NAME_LOOKUP_SECONDS = 1.0
"""`users.info` may hold up an acknowledgement (Slack wants one within 3 s) this long at most."""
RECENT_EVENTS = 2048
MAX_BACKOFF = 60.0
TRANSIENT_ERRORS = ("internal_error", "fatal_error", "service_unavailable", "request_timeout", "team_added_to_org")
_CHANNEL_ID = re.compile(r"^[CDGU][A-Z0-9]{2,}$")
_TS = re.compile(r"^\d+\.\d+$")


class _At(Clock):
    """A clock stopped at `when`: the SDK's own age check then agrees with `verify`'s `now`."""

    def __init__(self, when: float) -> None:
        self._when = when

    def now(self) -> float:
        return self._when


class SlackAdapter:
    channel = CHANNEL

    def __init__(self, account_id: str, settings: SlackAccount) -> None:
        self.account_id = account_id
        self.settings = settings
        self.token = settings.token()
        self.limits = ChannelLimits(
            settings.max_message_chars,
            supports_edits=True,
            idempotent_sends=False,  # chat.postMessage takes no idempotency key
            text_format="slack-mrkdwn",
            rate_per_second=settings.rate_per_second,
        )
        self.streams = settings.streaming
        self.access: AccessPolicy | None = AccessPolicy.of(settings, settings.channels)
        self.api = SlackApi(settings.base_url(), self.token or "")
        self.bot: BotIdentity | None = None
        self.socket: SocketMode | None = None
        self._batch: InboxBatch | None = None
        self._names: dict[str, str | None] = {}
        self._recent: OrderedDict[str, None] = OrderedDict()
        """Event ids already committed (newest last): a repeated one is answered without a lookup."""
        self._host: ChannelHost | None = None
        self._task: asyncio.Task[None] | None = None

    # --- inbound --------------------------------------------------------------------------------

    def verify(self, headers: Mapping[str, str], body: bytes, now: float | None = None) -> None:
        """The v0 signature (`HMAC-SHA256("v0:<timestamp>:<body>")` with the signing secret) over the exact
        bytes received, and a timestamp within five minutes; `VerifyError` otherwise."""
        if self.settings.mode != "events":
            raise VerifyError(404, "this Slack account uses Socket Mode, not the Events API")
        secret = self.settings.signing_key()
        if not secret:
            raise VerifyError(503, "no signing secret configured")
        stamp, given = headers.get(TIMESTAMP, ""), headers.get(SIGNATURE, "")
        if not given:
            raise VerifyError(401, "missing X-Slack-Signature")
        when = now or time.time()
        if not stamp.isdigit() or abs(when - int(stamp)) > TOLERANCE_SECONDS:
            raise VerifyError(401, "stale or missing X-Slack-Request-Timestamp")
        verifier = SignatureVerifier(secret, clock=_At(when))  # the SDK checks the age again, by this same clock
        try:
            valid = verifier.is_valid(body, stamp, given)
        except UnicodeDecodeError:
            valid = False
        if not valid:
            raise VerifyError(401, "invalid signature", presented=given)

    def parse(self, payload: Any) -> SlCallback:
        try:
            return SlCallback.model_validate(payload)
        except ValidationError as exc:
            raise ValueError(first_problem(exc, "event")) from None

    def normalize(self, payload: Any) -> list[Inbound]:
        """An Events API payload → at most one message (the sender's name only if it is already known)."""
        callback = payload if isinstance(payload, SlCallback) else self.parse(payload)
        user = callback.event.user if callback.event else None
        found = to_inbound(callback, self.account_id, self.bot, self._names.get(user or ""))
        return [] if found is None else [found]

    async def take(self, host: ChannelHost, callback: SlCallback, batch: InboxBatch | None = None) -> str:
        """Store one event's message in the inbox: `accepted`, `duplicate` or `ignored` once it is
        committed (or there was nothing to commit). Raises what the store raises: then nothing is
        acknowledged and Slack delivers again. With a `batch` (Socket Mode) the message is only queued
        for the batch's next commit (`queued`): the caller acknowledges after `batch.flush()`."""
        event_id = callback.event_id
        if event_id and event_id in self._recent:
            return "duplicate"
        if is_message_for_agent(callback, self.bot) and callback.event and callback.event.user:
            await self._resolve_name(callback.event.user)
        inbound = self.normalize(callback)
        if not inbound:
            return "ignored"
        fault("webhook.before_inbox_commit")
        if batch is not None:
            await batch.add(inbound)
            outcome = "queued"
        else:
            outcome = "accepted" if any(await host.accept(CHANNEL, self.account_id, inbound)) else "duplicate"
        if event_id:
            self._recent[event_id] = None
            while len(self._recent) > RECENT_EVENTS:
                self._recent.popitem(last=False)
        return outcome

    async def _resolve_name(self, user: str) -> None:
        if user in self._names:
            return
        try:
            found = await asyncio.wait_for(self.api.user_info(user), NAME_LOOKUP_SECONDS)
        except TimeoutError:
            log.info("slack %s: no display name for %s: users.info timed out", self.account_id, user)
            return  # asked again next time
        except SlackError as exc:
            log.info("slack %s: no display name for %s: %s", self.account_id, user, exc)
            if exc.status == 200:  # Slack's answer (user_not_found, missing_scope …): asking again cannot help
                self._names[user] = None
            return
        self._names[user] = display_name(found.get("user"))

    async def _envelope(self, payload: dict[str, Any]) -> None:
        """Socket Mode: one `events_api` envelope's payload, queued in order for the next inbox commit (the
        envelope is acknowledged once that commit is done)."""
        assert self._host is not None and self._batch is not None
        try:
            callback = self.parse(payload)
        except ValueError as exc:
            log.warning("slack %s: skipped an envelope: %s", self.account_id, exc)
            return
        await self.take(self._host, callback, self._batch)

    # --- outbound -------------------------------------------------------------------------------

    async def send(self, reply_to: Mapping[str, Any], text: str, *, idempotency_key: str) -> Sent:
        thread = reply_to.get("thread_ts")
        try:
            found = await self.api.post_message(str(reply_to["channel"]), text, str(thread) if thread else None)
        except SlackError as exc:
            raise _send_error(exc) from None
        ts = found.get("ts")
        return Sent(None if ts is None else str(ts))

    async def update(self, reply_to: Mapping[str, Any], message_id: str, text: str, *, final: bool = False) -> None:
        try:
            await self.api.update_message(str(reply_to["channel"]), message_id, text)
        except SlackError as exc:
            raise _send_error(exc) from None

    def describe(self) -> dict[str, Any]:
        s = self.settings
        return {"mode": s.mode, "dmPolicy": s.dm_policy, "groupPolicy": s.group_policy,
                "allowFrom": list(s.allow_from), "channels": sorted(s.channels), "streaming": s.streaming}  # fmt: skip

    def check_target(self, target: str) -> str | None:
        """An automation's `--deliver slack:<channel>[:<thread_ts>]`: a one-line error, or None."""
        channel, _, thread = target.strip().partition(":")
        if not _CHANNEL_ID.match(channel) or (thread and not _TS.match(thread)):
            return (
                f"invalid slack target {target!r}: use a channel id (C…, G…, D…) or a user id (U…),"
                " optionally :<thread ts> (1700000000.000100)"
            )
        return None

    def address(self, target: str) -> tuple[str, dict[str, Any]]:
        problem = self.check_target(target)
        if problem:
            raise UsageError(problem)
        channel, _, thread = target.strip().partition(":")
        reply_to: dict[str, Any] = {"channel": channel}
        if thread:
            reply_to["thread_ts"] = thread
        return f"{CHANNEL}|{self.account_id}|{channel}|{thread}", reply_to

    # --- lifecycle ------------------------------------------------------------------------------

    async def start(self, host: ChannelHost) -> None:
        health = host.health(CHANNEL, self.account_id)
        s = self.settings
        if not self.token:
            where = f"env {s.bot_token_env}" if s.bot_token_env else "botToken"
            health.error(f"no bot token ({where} is empty); the account is not started")
            return
        if s.mode == "events" and not s.signing_key():
            where = f"env {s.signing_secret_env}" if s.signing_secret_env else "signingSecret"
            health.error(f"events mode without a signing secret ({where} is empty): every request is refused")
            return
        if s.mode == "socket" and not s.app_level_token():
            where = f"env {s.app_token_env}" if s.app_token_env else "appToken"
            health.error(f"socket mode without an app-level token ({where} is empty); the account is not started")
            return
        self._host = host
        health.state, health.detail = "starting", s.mode
        self._task = asyncio.create_task(self._run(host), name=f"slack:{self.account_id}")

    async def _run(self, host: ChannelHost) -> None:
        health = host.health(CHANNEL, self.account_id)
        await self._identify(host)
        if self.settings.mode == "events":
            health.ok()
            health.detail = f"events at /slack/{self.account_id}"
            return
        app_token = self.settings.app_level_token() or ""
        self._batch = InboxBatch(host, CHANNEL, self.account_id)
        self.socket = SocketMode(
            lambda: self.api.connections_open(app_token), self._envelope, self._batch.flush, health,
            ping_interval=self.settings.ping_interval_seconds, max_backoff=self.settings.max_backoff_seconds,
        )  # fmt: skip
        await self.socket.run()

    async def _identify(self, host: ChannelHost) -> None:
        """`auth.test`: the bot's own user id (to tell a mention of it, and its own messages), retried with
        backoff until Slack answers."""
        health = host.health(CHANNEL, self.account_id)
        wait = 1.0
        while self.bot is None:
            try:
                found = await self.api.auth_test()
                if not found.get("user_id"):
                    raise SlackError("auth.test", "unexpected answer (no user_id)")
                self.bot = BotIdentity(str(found["user_id"]), str(found["bot_id"]) if found.get("bot_id") else None)
            except SlackError as exc:
                health.error(str(exc))
                pause = max(wait, exc.retry_after or 0.0)
                log.warning("slack %s: %s (retrying in %g s)", self.account_id, exc, pause)
                await asyncio.sleep(pause)
                wait = min(wait * 2, MAX_BACKOFF)

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None
        await self.api.close()


def _send_error(exc: SlackError) -> SendError:
    if exc.rate_limited:
        return SendError(str(exc), retry_after=exc.retry_after or 1.0)
    if exc.status is None:
        return SendError(str(exc), maybe_sent=exc.sent)
    if exc.status >= 500 or exc.code in TRANSIENT_ERRORS:
        return SendError(str(exc))
    return SendError(str(exc), permanent=True)  # channel_not_found, not_in_channel, invalid_auth, …
