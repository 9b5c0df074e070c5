"""RPC methods of the channels (served in-process and over WebSocket, so the CLI works either way):

- `channels.list`: every configured account, with its mode and access policy
- `channels.status`: each account's health (last poll, last error) and its inbox/outbox backlog, and
  `idle`: the channels run with nothing left to process or send (`ChannelService.idle`)
- `pairing.list {channel?}`: pending pairing codes and approved senders
- `pairing.approve {channel, code}`: approve the sender of a pending code
- `outbox.list {dead?, limit?}`: replies not sent yet (or only the dead letters)
- `outbox.retry {id}`: queue a dead, unknown or waiting reply again, now

Each is bound to the capability's `ChannelManager`, and reaches the gateway only through the manager's
`ChannelsHost`; the gateway that `Gateway.call_method` hands every method first is not used.
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BeforeValidator, Field

from claw.api.method import RpcMethod, table
from claw.api.params import (
    ClosedParams,
    Flag,
    NonEmptyStr,
    NoParams,
    OptionalStr,
    Params,
    PositiveInt,
    takes,
)
from claw.channels import inbox, outbox, pairing
from claw.errors import NotFoundError, UsageError
from claw.protocol.scopes import ADMIN, READ, WRITE

if TYPE_CHECKING:
    from claw.channels.adapter import ChannelAdapter
    from claw.channels.manager import ChannelManager


_APPROVE_HINT = "as in `claw pairing approve telegram ABCD2345`"


class PairingListParams(Params):
    channel: OptionalStr = None


class PairingApproveParams(Params):
    channel: NonEmptyStr = Field(description=f"a channel, {_APPROVE_HINT}")
    code: NonEmptyStr = Field(description=f"a pairing code, {_APPROVE_HINT}")


class OutboxListParams(Params):
    dead: Flag = False
    limit: PositiveInt = 100


def _digits_as_number(value: Any) -> Any:
    return int(value) if isinstance(value, str) and value.isdigit() else value


class OutboxRetryParams(Params):
    id: Annotated[int, BeforeValidator(_digits_as_number)] = Field(
        description="an entry id: a number, as `claw outbox ls` shows it"
    )


def _describe(adapter: ChannelAdapter) -> dict[str, Any]:
    return {"channel": adapter.channel, "accountId": adapter.account_id, **adapter.describe()}


@takes(NoParams)
async def channels_list(manager: ChannelManager, _gateway: object, params: NoParams) -> list[dict[str, Any]]:
    return [_describe(a) for a in manager.adapters.values()]


@takes(NoParams)
async def channels_status(manager: ChannelManager, _gateway: object, params: NoParams) -> dict[str, Any]:
    m = manager
    inbound = await m.db.aread(inbox.counts)
    outbound = await m.db.aread(outbox.counts)
    accounts = []
    for key, adapter in m.adapters.items():
        health = m.health(*key).to_wire()
        if not m.running:
            health["state"] = "not running"
        offset = await m.read_state(key[0], key[1], "offset") if key[0] == "telegram" else None
        accounts.append(
            {
                **_describe(adapter),
                **health,
                "inbox": inbound.get(key, {}),
                "outbox": outbound.get(key, {}),
                "offset": None if offset is None else int(offset),
            }  # fmt: skip
        )
    from claw.channels.service import ChannelService

    service = next((s for s in m.host.services if isinstance(s, ChannelService)), None)
    return {"running": m.running, "idle": service is not None and service.idle, "accounts": accounts,
            **_openclaw_view(accounts)}  # fmt: skip


def _ms(seconds: Any) -> int | None:
    return None if seconds is None else int(float(seconds) * 1000)


def _openclaw_view(accounts: list[dict[str, Any]]) -> dict[str, Any]:
    """The same accounts as OpenClaw's `channels.status` groups them (by channel, times in ms), beside
    claw's own `accounts` list, for OpenClaw's clients: `channels` (a summary each), `channelAccounts`,
    `channelDefaultAccountId`, `channelOrder`."""
    by_channel: dict[str, list[dict[str, Any]]] = {}
    for row in accounts:
        account = {"accountId": row["accountId"], "configured": True, "running": row["state"] == "running",
                   "lastError": row["lastError"], "lastErrorAt": _ms(row["lastErrorAt"]),
                   "lastInboundAt": _ms(row["lastInboundAt"])}  # fmt: skip
        by_channel.setdefault(row["channel"], []).append(account)
    return {
        "ts": int(time.time() * 1000),
        "channelOrder": list(by_channel),
        "channelLabels": {channel: channel.capitalize() for channel in by_channel},
        "channels": {channel: {"configured": True} for channel in by_channel},
        "channelAccounts": by_channel,
        "channelDefaultAccountId": {channel: rows[0]["accountId"] for channel, rows in by_channel.items()},
    }


@takes(PairingListParams)
async def pairing_list(manager: ChannelManager, _gateway: object, params: PairingListParams) -> dict[str, Any]:
    channel = params.channel
    m = manager
    pending = await m.db.aread(lambda c: pairing.pending(c, time.time(), channel))
    approved = await m.db.aread(lambda c: pairing.approved(c, channel))
    return {"pending": [p.to_wire() for p in pending], "approved": approved}


@takes(PairingApproveParams)
async def pairing_approve(manager: ChannelManager, _gateway: object, params: PairingApproveParams) -> dict[str, Any]:
    channel, code = params.channel, params.code
    request = await manager.db.awrite(lambda c: pairing.approve(c, channel.lower(), code, time.time()))
    return request.to_wire()


@takes(OutboxListParams)
async def outbox_list(manager: ChannelManager, _gateway: object, params: OutboxListParams) -> list[dict[str, Any]]:
    rows = await manager.db.aread(lambda c: outbox.listing(c, dead=params.dead, limit=params.limit))
    return [r.to_wire() for r in rows]


@takes(OutboxRetryParams)
async def outbox_retry(manager: ChannelManager, _gateway: object, params: OutboxRetryParams) -> dict[str, Any]:
    row_id = params.id
    m = manager
    row = await m.db.awrite(lambda c: outbox.retry(c, row_id, time.time()))
    m.outbox_wake.set()
    return {**row.to_wire(), "delivering": m.running}


class MessageActionParams(ClosedParams):
    """OpenClaw's `message.action` (`openclaw message send`): `action` on `channel`, its own `params`."""

    channel: str = Field(min_length=1)
    action: str = Field(min_length=1)
    params: dict[str, Any]
    idempotency_key: str = Field(min_length=1)
    reply: Any = None
    account_id: str | None = None
    requester_account_id: str | None = None
    requester_sender_id: str | None = None
    sender_is_owner: bool | None = None
    session_key: str | None = None
    session_id: str | None = None
    inbound_turn_kind: str | None = None
    agent_id: str | None = None
    tool_context: Any = None
    conversation_read_origin: str | None = None


@takes(MessageActionParams)
async def message_action(manager: ChannelManager, _gateway: object, params: MessageActionParams) -> dict[str, Any]:
    """`send` only: the text goes through claw's outbox to `<channel>:<to>` (rendered, split, delivered and
    retried like any reply). OpenClaw's other message actions (react, edit, poll …) are refused by name."""
    from claw.channels.announce import queue_announcement

    if params.action != "send":
        raise UsageError(f"claw's channels send messages; message action {params.action!r} is not served")
    fields = params.params
    target = fields.get("to", fields.get("target"))
    text = fields.get("message", fields.get("text"))
    if not isinstance(target, str) or not target.strip():
        raise UsageError("invalid message.action params: params.to must be a non-empty string")
    if not isinstance(text, str) or not text.strip():
        raise UsageError("claw sends text messages: params.message must be a non-empty string")
    target = target.strip().removeprefix(f"{params.channel}:")  # OpenClaw's CLI sends `telegram:123`
    row_id = await queue_announcement(manager, params.channel, target, text, run_id=params.idempotency_key)
    if row_id is None:
        raise NotFoundError(f"no {params.channel} account is configured (see `claw channels ls`)")
    return {"ok": True, "channel": params.channel, "action": "send", "to": target,
            "messageId": f"outbox:{row_id}", "queued": True}  # fmt: skip


def channel_methods(manager: ChannelManager) -> dict[str, RpcMethod]:
    """These methods by wire name, bound to `manager`."""
    return table(
        RpcMethod("channels.list", READ, partial(channels_list, manager)),
        RpcMethod("channels.status", READ, partial(channels_status, manager)),
        RpcMethod("pairing.list", READ, partial(pairing_list, manager)),
        RpcMethod("pairing.approve", ADMIN, partial(pairing_approve, manager)),
        RpcMethod("outbox.list", READ, partial(outbox_list, manager)),
        RpcMethod("outbox.retry", ADMIN, partial(outbox_retry, manager)),
        RpcMethod("message.action", WRITE, partial(message_action, manager)),
    )
