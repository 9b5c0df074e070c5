"""The Discord channel: one bot account, receiving over the gateway WebSocket (`DiscordGateway`) and replying
over REST (`DiscordRest`), both written against Discord's documented protocol (no discord.py) with their
base URLs configurable (`gatewayUrl`, `apiBaseUrl`), which is how the tests run against a fake Discord.

Each message is stored in the inbox together with the gateway session (id, resume URL, sequence number)
in one transaction, so a restart resumes where the stored messages end, and whatever Discord replays is
dropped there as a duplicate (the message id is the dedupe key). The messages read while a commit is
under way go in the next one together (`InboxBatch`), so a busy gateway.db does not slow the connection
to one message per commit. Replies are Discord Markdown (the
Markdown the model writes, which Discord renders), split at 2,000 characters, sent as
`POST /channels/{id}/messages` (in guilds as a reply to the message), edited with `PATCH` when
streaming; mentions in replies never ping anyone (`allowed_mentions.parse = []`).
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from claw.channels.access import AccessPolicy, Decision, GroupRule
from claw.channels.adapter import ChannelLimits, SendError, Sent, VerifyError
from claw.channels.discord.gateway import DiscordGateway, GatewaySession
from claw.channels.discord.rest import DiscordError, DiscordRest
from claw.channels.discord.wire import CHANNEL, THREAD_TYPES, BotIdentity, DcMessage, to_inbound
from claw.channels.inbound import Inbound
from claw.channels.inbox_batch import InboxBatch
from claw.channels.tasks import cancel_and_wait
from claw.channels.validation import first_problem
from claw.errors import ClawError, UsageError
from claw.settings.channel_access import WILDCARD
from claw.settings.discord import DiscordAccount
from claw.vocab.msg_context import MsgContext

if TYPE_CHECKING:
    from claw.channels.host import ChannelHost

log = logging.getLogger(__name__)

_SNOWFLAKE = re.compile(r"^\d{1,20}$")


@dataclass(frozen=True, slots=True)
class DiscordAccess(AccessPolicy):
    """Telegram's rules, with guilds: a guild message is judged by its channel's entry (a thread by its
    parent's), else by its guild's entry, else by `"*"` in either."""

    guilds: dict[str, GroupRule] | None = None

    def decide(self, ctx: MsgContext, *, mentioned: bool, approved: bool) -> Decision:
        if ctx.chat_type == "direct":
            return AccessPolicy.decide(self, ctx, mentioned=mentioned, approved=approved)
        guilds = self.guilds or {}
        rule = (
            self.groups.get(ctx.group_id or "")
            or guilds.get(ctx.guild_id or "")
            or self.groups.get(WILDCARD)
            or guilds.get(WILDCARD)
        )
        chosen = {} if rule is None else {ctx.group_id or ctx.peer_id: rule}
        return AccessPolicy.decide(replace(self, groups=chosen), ctx, mentioned=mentioned, approved=approved)


class DiscordAdapter:
    channel = CHANNEL

    def __init__(self, account_id: str, settings: DiscordAccount) -> None:
        self.account_id = account_id
        self.settings = settings
        self.token = settings.token()
        self.limits = ChannelLimits(
            settings.max_message_chars,
            supports_edits=True,
            idempotent_sends=False,  # `enforce_nonce` dedupes for a few minutes only: not enough after a crash
            text_format="markdown",
            rate_per_second=settings.rate_per_second,
        )
        self.streams = settings.streaming
        guilds = GroupRule.table(settings.guilds)
        self.access: AccessPolicy | None = DiscordAccess.of(settings, settings.channels, guilds=guilds)
        self.bot: BotIdentity | None = None
        self.rest = DiscordRest(settings.api_base_url, self.token or "")
        self.gateway: DiscordGateway | None = None
        self._parents: dict[str, str | None] = {}
        """Channel id → its parent when it is a thread (None: not a thread), from the gateway and REST."""
        self._host: ChannelHost | None = None
        self._batch: InboxBatch | None = None
        self._task: asyncio.Task[None] | None = None

    # --- inbound --------------------------------------------------------------------------------

    def verify(self, headers: Mapping[str, str], body: bytes) -> None:
        raise VerifyError(404, "discord receives over its gateway connection, not over HTTP")

    def normalize(self, payload: Any) -> list[Inbound]:
        """A `MESSAGE_CREATE` event's data → at most one message (the thread's parent must be known)."""
        try:
            msg = DcMessage.model_validate(payload)
        except ValidationError as exc:
            raise ValueError(first_problem(exc, "message")) from None
        found = to_inbound(msg, self.account_id, self.bot, self._parents.get(msg.channel_id))
        return [] if found is None else [found]

    async def _on_event(self, event: str, data: Any, seq: int) -> None:
        """One dispatch from the gateway; returns once it is handled (a message: queued for the inbox commit
        that also stores its sequence number)."""
        if not isinstance(data, dict):
            return
        if event == "READY" and isinstance(data.get("user"), dict):
            user = data["user"]
            self.bot = BotIdentity(str(user.get("id")), str(user.get("username") or ""))
        elif event == "GUILD_CREATE":
            for ch in data.get("channels") or []:
                self._parents[str(ch.get("id"))] = None
            for th in data.get("threads") or []:
                self._parents[str(th.get("id"))] = str(th.get("parent_id"))
        elif event in ("THREAD_CREATE", "THREAD_UPDATE") and data.get("type") in THREAD_TYPES:
            self._parents[str(data.get("id"))] = str(data.get("parent_id"))
        elif event == "MESSAGE_CREATE":
            await self._message(data, seq)

    async def _message(self, data: dict[str, Any], seq: int) -> None:
        assert self._batch is not None and self.gateway is not None
        channel_id = str(data.get("channel_id"))
        if data.get("guild_id") and channel_id not in self._parents:
            self._parents[channel_id] = await self._parent_of(channel_id)
        try:
            inbound = self.normalize(data)
        except ValueError as exc:
            log.warning("discord %s: skipped a message: %s", self.account_id, exc)
            inbound = []
        await self._batch.add(inbound, _state(self.gateway.session, seq))

    async def _parent_of(self, channel_id: str) -> str | None:
        """A channel the gateway has not described: asked over REST (a failure counts as "not a thread")."""
        try:
            found = await self.rest.request("GET", f"/channels/{channel_id}")
        except DiscordError as exc:
            log.info("discord %s: channel %s: %s", self.account_id, channel_id, exc.description)
            return None
        if isinstance(found, dict) and found.get("type") in THREAD_TYPES and found.get("parent_id"):
            return str(found["parent_id"])
        return None

    # --- outbound -------------------------------------------------------------------------------

    async def send(self, reply_to: Mapping[str, Any], text: str, *, idempotency_key: str) -> Sent:
        body: dict[str, Any] = {"content": text, "allowed_mentions": {"parse": []}}
        if reply_to.get("reply_to"):
            body["message_reference"] = {"message_id": str(reply_to["reply_to"]), "fail_if_not_exists": False}
        try:
            found = await self.rest.request("POST", f"/channels/{reply_to['channel_id']}/messages", body)
        except DiscordError as exc:
            raise _send_error(exc) from None
        message_id = found.get("id") if isinstance(found, dict) else None
        return Sent(None if message_id is None else str(message_id))

    async def update(self, reply_to: Mapping[str, Any], message_id: str, text: str, *, final: bool = False) -> None:
        body = {"content": text, "allowed_mentions": {"parse": []}}
        try:
            await self.rest.request("PATCH", f"/channels/{reply_to['channel_id']}/messages/{message_id}", body)
        except DiscordError as exc:
            raise _send_error(exc) from None

    def describe(self) -> dict[str, Any]:
        s = self.settings
        return {"mode": "gateway", "dmPolicy": s.dm_policy, "groupPolicy": s.group_policy,
                "allowFrom": list(s.allow_from), "guilds": sorted(s.guilds), "channels": sorted(s.channels),
                "streaming": s.streaming}  # fmt: skip

    def check_target(self, target: str) -> str | None:
        """An automation's `--deliver discord:<channel>`: a one-line error, or None when it can be used."""
        if not _SNOWFLAKE.match(target.strip()):
            return f"invalid discord target {target!r}: use the channel id (a number; Developer Mode → Copy ID)"
        return None

    def address(self, target: str) -> tuple[str, dict[str, Any]]:
        """An automation's target `<channelId>` (a DM channel, a guild channel or a thread) → (conversation,
        reply target)."""
        problem = self.check_target(target)
        if problem:
            raise UsageError(problem)
        channel_id = target.strip()
        return f"{CHANNEL}|{self.account_id}|{channel_id}", {"channel_id": channel_id}

    # --- lifecycle ------------------------------------------------------------------------------

    async def start(self, host: ChannelHost) -> None:
        health = host.health(CHANNEL, self.account_id)
        if not self.token:
            where = f"env {self.settings.bot_token_env}" if self.settings.bot_token_env else "botToken"
            health.error(f"no bot token ({where} is empty); the account is not started")
            return
        self._host = host
        self._batch = InboxBatch(host, CHANNEL, self.account_id)
        health.state, health.detail = "starting", "gateway"
        self._task = asyncio.create_task(self._run(host), name=f"discord:{self.account_id}")

    async def _run(self, host: ChannelHost) -> None:
        health = host.health(CHANNEL, self.account_id)
        try:
            session = await _load_session(host, self.account_id)
        except ClawError as exc:
            log.warning("discord %s: stored session unreadable (%s); identifying anew", self.account_id, exc)
            session = GatewaySession()

        async def keep(s: GatewaySession) -> None:  # in the same queue: never behind an older session's state
            assert self._batch is not None
            await self._batch.add([], _state(s, s.seq))

        self.gateway = DiscordGateway(
            self.settings.gateway_url, self.token or "", self._on_event, health, session=session,
            max_backoff=self.settings.max_backoff_seconds, on_session=keep,
        )  # fmt: skip
        await self.gateway.run()

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None
        await self.rest.close()


def _state(session: GatewaySession, seq: int | None) -> dict[str, str]:
    """The gateway session as channel state, committed with the messages up to `seq`."""
    if session.session_id is None or seq is None or seq < 0:
        return {}
    return {"session_id": session.session_id, "resume_url": session.resume_url or "", "seq": str(seq)}


async def _load_session(host: ChannelHost, account_id: str) -> GatewaySession:
    session_id = await host.read_state(CHANNEL, account_id, "session_id")
    seq = await host.read_state(CHANNEL, account_id, "seq")
    if not session_id or not seq or not seq.isdigit():
        return GatewaySession()
    resume_url = await host.read_state(CHANNEL, account_id, "resume_url")
    return GatewaySession(session_id, resume_url or None, int(seq))


def _send_error(exc: DiscordError) -> SendError:
    if exc.status == 429:
        return SendError(exc.description, retry_after=exc.retry_after or 1.0)
    if exc.status is None:
        return SendError(exc.description, maybe_sent=exc.sent)
    if exc.status >= 500:
        return SendError(f"HTTP {exc.status}: {exc.description}")
    return SendError(f"HTTP {exc.status}: {exc.description} (code {exc.code})", permanent=True)
