"""OpenClaw's device-pairing methods, served by claw's network server from its `DeviceRegistry`.

    device.pair.list    {}              → {pending: [request…], paired: [device…]}
    device.pair.approve {requestId}     → {requestId, device}
    device.pair.reject  {requestId}     → {requestId, deviceId}
    device.pair.remove  {deviceId}      → {deviceId}          and the device's connections are closed
    device.pair.rename  {deviceId, label} → {deviceId, displayName}

The shapes are OpenClaw's (`openclaw devices list|approve|reject|remove` call exactly these): a pending
request is `{requestId, deviceId, publicKey, displayName?, platform?, clientId?, clientMode?, role?,
roles?, scopes?, remoteIp?, ts}`, a paired device `{deviceId, publicKey, displayName?, …, approvedVia,
createdAtMs, approvedAtMs, lastSeenAtMs?, connected, tokens}`; `tokens` is always empty, since claw
issues no device tokens (everyone connects with the gateway token and signs with its key). A revoked
device is in neither list (OpenClaw has no such state): `claw devices ls` shows it. An unknown request
or device is OpenClaw's `INVALID_REQUEST` "unknown requestId" / "unknown deviceId", which its CLI reads.

OpenClaw also refuses an approval that would grant more scopes than the caller holds. claw does not
bind scopes to a pairing (a paired device gets the scopes it asks for at each connect, as every holder
of the gateway token may), so there is nothing to exceed; the methods need `operator.pairing`
(claw/protocol/scopes.py) and nothing more. These are methods of the server, not the gateway:
removing a device must close its sockets, which only the server holds.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import AfterValidator, Field

from claw.api.method import RpcMethod, table
from claw.api.params import ClosedParams, takes
from claw.errors import NotFoundError
from claw.protocol.scopes import PAIRING
from claw.server.device_watch import REMOVED_REASON
from claw.server.devices import PAIRED, PENDING, DeviceRegistry

log = logging.getLogger(__name__)

_PENDING_FIELDS = ("requestId", "deviceId", "publicKey", "displayName", "platform", "deviceFamily", "clientId",
                   "clientMode", "role", "scopes")  # fmt: skip
_PAIRED_FIELDS = ("deviceId", "publicKey", "displayName", "platform", "deviceFamily", "clientId", "clientMode",
                  "role", "scopes", "createdAtMs", "approvedAtMs", "lastSeenAtMs")  # fmt: skip


Text = Annotated[str, Field(pattern=r"\S", description="a non-empty string"), AfterValidator(str.strip)]


class _NoParams(ClosedParams):
    """`device.pair.list`: OpenClaw's closed params object, empty."""


class _RequestParams(ClosedParams):
    request_id: Text


class _DeviceParams(ClosedParams):
    device_id: Text


class _RenameParams(_DeviceParams):
    label: Text


class DevicePairing:
    """The `device.pair.*` methods; `cut(device_id, reason)` starts closing a device's connections
    (`DeviceWatch.cut_soon`), `connected(device_id)` says whether it has one."""

    def __init__(
        self, registry: DeviceRegistry, cut: Callable[[str, str], None], connected: Callable[[str], bool]
    ) -> None:
        self._registry = registry
        self._cut = cut
        self._connected = connected

    def methods(self) -> dict[str, RpcMethod]:
        return table(
            RpcMethod("device.pair.list", PAIRING, self.list),
            RpcMethod("device.pair.approve", PAIRING, self.approve),
            RpcMethod("device.pair.reject", PAIRING, self.reject),
            RpcMethod("device.pair.remove", PAIRING, self.remove),
            RpcMethod("device.pair.rename", PAIRING, self.rename),
        )

    @takes(_NoParams)
    async def list(self, params: _NoParams) -> dict[str, Any]:
        records = await asyncio.to_thread(self._registry.list)
        pending = [pending_request(r) for r in records if r.get("status") == PENDING]
        paired = [self.paired_device(r) for r in records if r.get("status") == PAIRED]
        return {"pending": pending, "paired": paired}

    @takes(_RequestParams)
    async def approve(self, params: _RequestParams) -> dict[str, Any]:
        request_id = params.request_id
        record = await asyncio.to_thread(self._registry.approve_request, request_id)
        if record is None:
            raise NotFoundError("unknown requestId")
        log.info("device %s approved (request %s)", record["deviceId"][:12], request_id)
        return {"requestId": request_id, "device": self.paired_device(record)}

    @takes(_RequestParams)
    async def reject(self, params: _RequestParams) -> dict[str, Any]:
        request_id = params.request_id
        record = await asyncio.to_thread(self._registry.reject, request_id)
        if record is None:
            raise NotFoundError("unknown requestId")
        log.info("device %s rejected (request %s)", record["deviceId"][:12], request_id)
        return {"requestId": request_id, "deviceId": record["deviceId"]}

    @takes(_DeviceParams)
    async def remove(self, params: _DeviceParams) -> dict[str, Any]:
        device_id = params.device_id
        record = await asyncio.to_thread(self._registry.remove, device_id)
        if record is None:
            raise NotFoundError("unknown deviceId")
        removed = record["deviceId"]
        log.info("device %s removed", removed[:12])
        # After the answer: the caller may be removing itself, and should hear that it worked first.
        # The connection sends its answer before it yields, and a close waits for a send under way.
        self._cut(removed, REMOVED_REASON)
        return {"deviceId": removed}

    @takes(_RenameParams)
    async def rename(self, params: _RenameParams) -> dict[str, Any]:
        record = await asyncio.to_thread(self._registry.rename, params.device_id, params.label)
        if record is None:
            raise NotFoundError("unknown deviceId")
        return {"deviceId": record["deviceId"], "displayName": record["displayName"]}

    def paired_device(self, record: dict[str, Any]) -> dict[str, Any]:
        """A paired record as OpenClaw's `device.pair.list` shows one (no key material beyond the public key)."""
        device = _pick(record, _PAIRED_FIELDS)
        device["approvedVia"] = "silent" if record.get("autoApproved") else "owner"
        _roles(device)
        if record.get("remote"):
            device["remoteIp"] = record["remote"]
        device["connected"] = self._connected(record["deviceId"])
        device["tokens"] = []
        return device


def pending_request(record: dict[str, Any]) -> dict[str, Any]:
    """A pending record as OpenClaw's pending pairing request."""
    request = _pick(record, _PENDING_FIELDS)
    if record.get("remote"):
        request["remoteIp"] = record["remote"]
    request["ts"] = int(record.get("createdAtMs", 0))
    _roles(request)
    return request


def _roles(entry: dict[str, Any]) -> None:
    """OpenClaw keeps `roles` beside the legacy `role`, and its CLI shows the former."""
    if entry.get("role"):
        entry["roles"] = [entry["role"]]


def _pick(record: dict[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    return {key: record[key] for key in fields if record.get(key) not in (None, "")}
