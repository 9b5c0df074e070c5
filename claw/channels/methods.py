"""RPC methods of the channels (served in-process and over WebSocket, so the CLI works either way):

- `channels.list`: every configured account, with its mode and access policy
- `channels.status`: each account's health (last poll, last error) and its inbox/outbox backlog, and
  `idle`: the channels run with nothing left to process or send (`ChannelService.idle`)
- `pairing.list {channel?}`: pending pairing codes and approved senders
- `pairing.approve {channel, code}`: approve the sender of a pending code
- `outbox.list {dead?, limit?}`: replies not sent yet (or only the dead letters)
- `outbox.retry {id}`: queue a dead, unknown or waiting reply again, now
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING, Any

from claw.channels import inbox, outbox, pairing
from claw.errors import UsageError

if TYPE_CHECKING:
    from claw.channels.adapter import ChannelAdapter
    from claw.channels.manager import ChannelManager
    from claw.gateway.capability import Method
    from claw.gateway.gateway import Gateway


def _describe(adapter: ChannelAdapter) -> dict[str, Any]:
    return {"channel": adapter.channel, "accountId": adapter.account_id, **adapter.describe()}


async def channels_list(manager: ChannelManager, gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    return [_describe(a) for a in manager.adapters.values()]


async def channels_status(manager: ChannelManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
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

    service = next((s for s in gw.services if isinstance(s, ChannelService)), None)
    return {"running": m.running, "idle": service is not None and service.idle, "accounts": accounts}


async def pairing_list(manager: ChannelManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    channel = _opt(params, "channel")
    m = manager
    pending = await m.db.aread(lambda c: pairing.pending(c, time.time(), channel))
    approved = await m.db.aread(lambda c: pairing.approved(c, channel))
    return {"pending": [p.to_wire() for p in pending], "approved": approved}


async def pairing_approve(manager: ChannelManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    channel, code = _opt(params, "channel"), _opt(params, "code")
    if not channel or not code:
        raise UsageError("pairing.approve needs a channel and a code, e.g. `claw pairing approve telegram ABCD2345`")
    request = await manager.db.awrite(lambda c: pairing.approve(c, channel.lower(), code, time.time()))
    return request.to_wire()


async def outbox_list(manager: ChannelManager, gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    dead = bool(params.get("dead", False))
    limit = params.get("limit", 100)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise UsageError("invalid parameter 'limit': a positive integer")
    rows = await manager.db.aread(lambda c: outbox.listing(c, dead=dead, limit=limit))
    return [r.to_wire() for r in rows]


async def outbox_retry(manager: ChannelManager, gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    row_id = params.get("id")
    if isinstance(row_id, str) and row_id.isdigit():
        row_id = int(row_id)
    if isinstance(row_id, bool) or not isinstance(row_id, int):
        raise UsageError("outbox.retry needs an entry id (a number, as `claw outbox ls` shows it)")
    m = manager
    row = await m.db.awrite(lambda c: outbox.retry(c, row_id, time.time()))
    m.outbox_wake.set()
    return {**row.to_wire(), "delivering": m.running}


def _opt(params: dict[str, Any], key: str) -> str | None:
    value = params.get(key)
    if value is not None and not isinstance(value, str):
        raise UsageError(f"invalid parameter {key!r}: expected a string")
    return value or None


def channel_methods(manager: ChannelManager) -> dict[str, Method]:
    """These methods by wire name, bound to `manager`."""
    return {
        "channels.list": partial(channels_list, manager),
        "channels.status": partial(channels_status, manager),
        "pairing.list": partial(pairing_list, manager),
        "pairing.approve": partial(pairing_approve, manager),
        "outbox.list": partial(outbox_list, manager),
        "outbox.retry": partial(outbox_retry, manager),
    }
