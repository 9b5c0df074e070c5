"""The WebSocket handshake of OpenClaw's protocol 4: challenge, `connect`, `hello-ok`.

    server → event connect.challenge {nonce, ts}
    client → req connect {minProtocol, maxProtocol, client, role, scopes, caps, auth: {token}, device?}
    server → res hello-ok {protocol: 4, server, features, snapshot, auth: {role, scopes}, policy}

A refusal is an error `res` (OpenClaw's codes: INVALID_REQUEST with `details.code`, NOT_PAIRED for
pairing) and then a close with a reason a person can read: 1002 for a protocol outside the client's
range, 1003 for a binary frame, 1008 for everything else (not JSON, not `connect`, bad params, a
missing or wrong token, a rate limit, a bad device proof, a device not approved, the timeout), and 1009
for a frame over 64 KiB before `connect` (the reader enforces it, see `server._WebSocket`).

Only a wrong token counts toward a lockout, and a lockout refuses only wrong tokens: the right one is
checked first and always passes. Devices (claw/server/devices.py): a device's proof must sign this
connection's nonce (so a recorded proof cannot be replayed); a new device gets in at once over loopback
and after `claw devices approve ID` (or OpenClaw's `device.pair.approve`) from anywhere else; a device
revoked or removed later loses its open connections too (claw/server/device_watch.py); a connection
without a device is served only over loopback. Scopes are those asked for (all operator scopes when
none are named), within `OPERATOR_SCOPES`; `hello-ok.auth.scopes` reports them and every request is
checked against them.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from claw.errors import ClawError
from claw.protocol import errors as wire_errors
from claw.protocol.device_proof import DeviceProofError, SignedFields, verify
from claw.protocol.frames import (
    ConnectParams,
    FrameError,
    error,
    event,
    ok,
    parse_connect,
    parse_request,
)
from claw.protocol.hello import granted_scopes, hello_ok
from claw.protocol.version import PROTOCOL_VERSION
from claw.server.auth import tokens_match
from claw.server.devices import PAIRED, PENDING, DeviceRegistry
from claw.server.settings import ServerSettings

log = logging.getLogger(__name__)

PROTOCOL_CLOSE = 1002


@dataclass(frozen=True, slots=True)
class ConnectInfo:
    """An authenticated connection: who it is, what it may do, what it opted into."""

    conn_id: str
    remote: str
    client_id: str
    client_version: str
    client_mode: str
    platform: str
    channel: str
    role: str
    scopes: frozenset[str]
    caps: frozenset[str]
    device_id: str | None = None
    instance_id: str | None = None
    connected_at_ms: int = 0

    def presence(self) -> dict[str, Any]:
        """This connection as an entry of OpenClaw's `snapshot.presence`."""
        entry: dict[str, Any] = {
            "clientId": self.client_id,
            "version": self.client_version,
            "mode": self.client_mode,
            "ts": self.connected_at_ms,
            "roles": [self.role],
            "scopes": sorted(self.scopes),
        }
        optional = (("platform", self.platform), ("deviceId", self.device_id), ("instanceId", self.instance_id))
        for key, value in optional:
            if value:
                entry[key] = value
        return entry


@dataclass(frozen=True, slots=True)
class Peer:
    """What the server knows of the socket before its first frame."""

    remote: str
    conn_id: str
    local: bool
    """A direct loopback connection (no proxy headers): new devices are paired without asking."""
    limit: int
    """The frame cap once authenticated (announced in the hello)."""


async def _refuse(ws: web.WebSocketResponse, code: int, reason: str, reply: str | None = None) -> None:
    try:
        if reply is not None:
            await ws.send_str(reply)
        await ws.close(code=code, message=reason.encode()[:120])
    except (ConnectionError, RuntimeError):
        pass  # the peer is already gone


async def handshake(
    ws: web.WebSocketResponse,
    peer: Peer,
    settings: ServerSettings,
    devices: DeviceRegistry | None,
    hello_for: Callable[[ConnectInfo], dict[str, Any]],
    authenticated: Callable[[], None],
) -> ConnectInfo | None:
    """Challenge, then authenticate the connection from its first frame; None when it was refused (and
    closed). `authenticated` lifts the frame cap before the hello goes out; `hello_for` builds it."""
    nonce = secrets.token_urlsafe(24)
    try:
        await ws.send_str(event("connect.challenge", {"nonce": nonce, "ts": _now_ms()}))
        async with asyncio.timeout(settings.handshake_timeout_s):
            msg = await ws.receive()
    except TimeoutError:
        await _refuse(ws, WSCloseCode.POLICY_VIOLATION, "handshake timeout: the first frame must be connect")
        return None
    except (ConnectionError, RuntimeError):
        return None
    if msg.type == WSMsgType.BINARY:
        await _refuse(ws, WSCloseCode.UNSUPPORTED_DATA, "text frames only")
        return None
    if msg.type != WSMsgType.TEXT:
        return None  # closed, or a protocol error aiohttp already answered (1007 invalid UTF-8, 1009 …)
    try:
        frame = parse_request(msg.data)
    except FrameError as exc:
        reply = error(exc.frame_id, exc.code, exc.message)
        await _refuse(ws, WSCloseCode.POLICY_VIOLATION, "invalid request frame", reply)
        return None
    if frame.method != "connect":
        reply = error(frame.id, wire_errors.INVALID_REQUEST, "first request must be connect")
        await _refuse(ws, WSCloseCode.POLICY_VIOLATION, "first request must be connect", reply)
        return None
    try:
        params = parse_connect(frame.params, frame.id)
    except FrameError as exc:  # nothing was presented that could be checked: not a failed attempt
        reply = error(frame.id, exc.code, exc.message)
        await _refuse(ws, WSCloseCode.POLICY_VIOLATION, "invalid connect params", reply)
        return None
    refusal = _check(params, peer, settings) or await _check_device(params, peer, devices, nonce)
    if refusal is not None:
        code, close_code, reason, message, details, extra = refusal
        await _refuse(ws, close_code, reason, error(frame.id, code, message, details, **extra))
        return None
    info = ConnectInfo(
        conn_id=peer.conn_id,
        remote=peer.remote,
        client_id=params.client.id,
        client_version=params.client.version,
        client_mode=params.client.mode,
        platform=params.client.platform,
        channel=params.client.channel,
        role=params.role,
        scopes=frozenset(granted_scopes(params.scopes)),
        caps=frozenset(params.caps),
        device_id=params.device.id.lower() if params.device else None,
        instance_id=params.client.instanceId,
        connected_at_ms=_now_ms(),
    )
    authenticated()
    try:
        await ws.send_str(ok(frame.id, hello_for(info)))
    except (ConnectionError, RuntimeError):
        return None
    return info


_Refusal = tuple[str, int, str, str, dict[str, Any] | None, dict[str, Any]]
"""(code, close code, close reason, message, details, extra error fields)."""


def _check(params: ConnectParams, peer: Peer, settings: ServerSettings) -> _Refusal | None:
    """Why this `connect` is refused, in OpenClaw's order (protocol, token, role; the device next); None: it
    is not."""
    bad = wire_errors.INVALID_REQUEST
    policy = WSCloseCode.POLICY_VIOLATION
    if not params.minProtocol <= PROTOCOL_VERSION <= params.maxProtocol:
        message = (f"protocol mismatch: this gateway speaks protocol {PROTOCOL_VERSION}, the client "
                   f"{params.minProtocol}..{params.maxProtocol}; upgrade the older side")  # fmt: skip
        details = {"code": wire_errors.PROTOCOL_MISMATCH, "clientMinProtocol": params.minProtocol,
                   "clientMaxProtocol": params.maxProtocol, "expectedProtocol": PROTOCOL_VERSION}  # fmt: skip
        return bad, PROTOCOL_CLOSE, "protocol mismatch", message, details, {}
    presented = params.auth.secret
    if not tokens_match(presented, settings.token or ""):
        # Only a wrong token counts; a missing one is never counted.
        wait = settings.limiter.failed(peer.remote, presented) if presented is not None else 0.0
        if wait:
            message = f"too many failed auth attempts; retry in {wait:.0f} s"
            details = {"code": wire_errors.AUTH_RATE_LIMITED}
            extra = {"retryable": True, "retryAfterMs": int(wait * 1000)}
            return bad, policy, "rate limited: too many failed auth attempts", message, details, extra
        what = "missing" if presented is None else "mismatch"
        level = logging.DEBUG if presented is None else logging.WARNING
        log.log(level, "refused connection %s from %s (client %s): token %s", peer.conn_id, peer.remote,
                params.client.id, what)  # fmt: skip
        code = wire_errors.AUTH_TOKEN_MISSING if presented is None else wire_errors.AUTH_TOKEN_MISMATCH
        hint = "pass the gateway token (`claw gateway token` prints it)"
        return bad, policy, "unauthorized", f"unauthorized: gateway token {what}; {hint}", {"code": code}, {}
    if params.role != "operator":
        message = f"role {params.role!r} is not served: claw's gateway has operators only"
        return bad, policy, "unsupported role", message, None, {}
    return None


async def _check_device(
    params: ConnectParams, peer: Peer, devices: DeviceRegistry | None, nonce: str
) -> _Refusal | None:
    policy = WSCloseCode.POLICY_VIOLATION
    proof = params.device
    if proof is None:
        if peer.local:
            return None
        message = "device identity required: connections from other hosts must sign in with a device"
        return wire_errors.NOT_PAIRED, policy, message, message, {"code": wire_errors.DEVICE_IDENTITY_REQUIRED}, {}
    fields = SignedFields(
        params.client.id, params.client.mode, params.role, params.scopes or [], params.auth.token,
        params.client.platform, params.client.deviceFamily,
    )  # fmt: skip
    try:
        raw_key = verify(proof.id, proof.publicKey, proof.signature, proof.signedAt, proof.nonce, fields,
                         expected_nonce=nonce, now_ms=_now_ms())  # fmt: skip
    except DeviceProofError as exc:
        log.warning("refused connection %s from %s: %s", peer.conn_id, peer.remote, exc.message)
        details: dict[str, Any] = {"code": exc.code, "reason": exc.reason}
        return wire_errors.INVALID_REQUEST, policy, exc.message, exc.message, details, {}
    if devices is None:
        return None
    device_id = proof.id.lower()
    client = {"clientId": params.client.id, "clientMode": params.client.mode, "platform": params.client.platform,
              "deviceFamily": params.client.deviceFamily, "displayName": params.client.displayName,
              "remote": peer.remote, "role": params.role, "scopes": granted_scopes(params.scopes)}  # fmt: skip
    try:  # a file under a lock, which `claw devices` may hold for a moment: off the event loop
        admission = await asyncio.to_thread(devices.admit, device_id, raw_key, local=peer.local, client=client)
    except (ClawError, OSError) as exc:
        log.error("connection %s: cannot check device %s: %s", peer.conn_id, device_id[:12], exc)
        message = "the gateway cannot read its devices file; see the gateway log"
        return wire_errors.UNAVAILABLE, WSCloseCode.INTERNAL_ERROR, message, message, None, {}
    if admission.status == PAIRED:
        return None
    details = {"code": wire_errors.PAIRING_REQUIRED, "deviceId": device_id}
    if admission.status == PENDING:
        details["requestId"] = admission.request_id
        message = (f"pairing required: approve this device on the gateway host with "
                   f"`claw devices approve {device_id[:12]}` (requestId: {admission.request_id})")  # fmt: skip
        reason = f"pairing required: device not yet approved (requestId: {admission.request_id})"
        log.info("connection %s from %s: device %s waits for approval", peer.conn_id, peer.remote, device_id[:12])
    else:
        message = reason = "pairing required: device revoked; `claw devices approve ID` lets it in again"
        log.warning("refused connection %s from %s: device %s is revoked", peer.conn_id, peer.remote, device_id[:12])
    return wire_errors.NOT_PAIRED, policy, reason, message, details, {}


def hello(
    info: ConnectInfo, settings: ServerSettings, methods: list[str], limit: int, snapshot: dict[str, Any]
) -> dict[str, Any]:
    """The connect reply for this connection (`claw.protocol.hello.hello_ok`)."""
    policy = {"maxPayload": limit, "maxBufferedBytes": settings.max_buffered_bytes,
              "tickIntervalMs": int(settings.tick_interval_s * 1000)}  # fmt: skip
    return hello_ok(info.conn_id, info.role, info.scopes, methods, snapshot, policy)


def _now_ms() -> int:
    return int(time.time() * 1000)
