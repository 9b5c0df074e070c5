"""The WebSocket handshake: the first frame must be `connect` with the token; the reply is the hello.

Anything else closes the socket with a reason a person can read: 1003 binary frame,
1008 not JSON / not `connect` / bad token / rate limited / handshake timeout, and 1009
for a frame over the connection's cap (64 KiB unless the upgrade request carried the
token; the reader enforces it before buffering, see `server._WebSocket`). A bad token
and a missing one get the same answer, but only a bad one counts toward a lockout, and a
lockout refuses only wrong tokens: the right one is checked first and always passes.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from aiohttp import WSCloseCode, WSMsgType, web

from claw import __version__
from claw.gateway.event_bus import DEFAULT_QUEUE_SIZE
from claw.server import wire_errors
from claw.server.auth import tokens_match
from claw.server.settings import PRE_AUTH_MAX_BYTES, ServerSettings
from claw.server.ws_protocol import PROTOCOL_VERSION, FrameError, error, ok, parse_connect, parse_request
from claw.server.ws_sessions import SUBSCRIBE, UNSUBSCRIBE

log = logging.getLogger(__name__)

EVENTS = ("agent", "exec.approval.requested", "exec.approval.resolved", "shutdown")
CONNECTION_METHODS = (SUBSCRIBE, UNSUBSCRIBE)
"""Served by the connection itself, not the gateway (claw/server/ws_sessions.py); listed in the hello."""


@dataclass(frozen=True, slots=True)
class ConnectInfo:
    """An authenticated connection: who it is and what it opted into."""

    conn_id: str
    remote: str
    client_name: str
    client_version: str
    channel: str
    caps: frozenset[str]


async def _refuse(ws: web.WebSocketResponse, code: int, reason: str, reply: str | None = None) -> None:
    try:
        if reply is not None:
            await ws.send_str(reply)
        await ws.close(code=code, message=reason.encode()[:120])
    except (ConnectionError, RuntimeError):
        pass  # the peer is already gone


async def handshake(
    ws: web.WebSocketResponse, remote: str, conn_id: str, settings: ServerSettings, methods: list[str], limit: int
) -> ConnectInfo | None:
    """Authenticate the connection from its first frame; None when it was refused (and closed).

    `limit` is this connection's frame cap (the reader enforces it), announced in the hello."""
    try:
        async with asyncio.timeout(settings.handshake_timeout_s):
            msg = await ws.receive()
    except TimeoutError:
        await _refuse(ws, WSCloseCode.POLICY_VIOLATION, "handshake timeout: the first frame must be connect")
        return None
    if msg.type == WSMsgType.BINARY:
        await _refuse(ws, WSCloseCode.UNSUPPORTED_DATA, "text frames only")
        return None
    if msg.type != WSMsgType.TEXT:
        return None  # closed, or a protocol error aiohttp already answered (1007 invalid UTF-8 …)
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
        await _refuse(
            ws, WSCloseCode.POLICY_VIOLATION, "invalid connect params", error(frame.id, exc.code, exc.message)
        )
        return None
    presented = params.auth.token if params.auth.token and params.auth.token.strip() else None
    if not tokens_match(presented, settings.token or ""):
        # Only a wrong token counts; a missing one gets the same answer and is never counted.
        wait = settings.limiter.failed(remote, presented) if presented is not None else 0.0
        if wait:
            message = f"too many failed auth attempts; retry in {wait:.0f} s"
            reply = error(frame.id, wire_errors.RATE_LIMITED, message, retryAfterMs=int(wait * 1000))
            await _refuse(ws, WSCloseCode.POLICY_VIOLATION, "rate limited: too many failed auth attempts", reply)
            return None
        level, what = (logging.DEBUG, "no") if presented is None else (logging.WARNING, "bad")
        log.log(level, "refused connection %s from %s (client %s): %s token", conn_id, remote, params.client.name, what)
        reply = error(frame.id, wire_errors.UNAUTHORIZED, "unauthorized: invalid or missing token")
        await _refuse(ws, WSCloseCode.POLICY_VIOLATION, "unauthorized", reply)
        return None
    if not params.minProtocol <= PROTOCOL_VERSION <= params.maxProtocol:
        message = f"protocol {PROTOCOL_VERSION} is not in the client's range {params.minProtocol}..{params.maxProtocol}"
        reply = error(frame.id, wire_errors.PROTOCOL_MISMATCH, message)
        await _refuse(ws, WSCloseCode.POLICY_VIOLATION, "protocol mismatch", reply)
        return None
    info = ConnectInfo(
        conn_id, remote, params.client.name, params.client.version, params.client.channel, frozenset(params.caps)
    )
    try:
        await ws.send_str(ok(frame.id, hello(info, settings, methods, limit)))
    except (ConnectionError, RuntimeError):
        return None
    return info


def hello(info: ConnectInfo, settings: ServerSettings, methods: list[str], limit: int) -> dict[str, object]:
    """The connect reply: protocol and server version, the methods served, the limits."""
    return {
        "type": "hello-ok",
        "protocol": PROTOCOL_VERSION,
        "server": {"name": "claw", "version": __version__, "connId": info.conn_id},
        "features": {"methods": sorted({*methods, *CONNECTION_METHODS}), "events": list(EVENTS)},
        "caps": sorted(info.caps),
        "policy": {
            "maxPayload": limit,
            "preAuthMaxPayload": PRE_AUTH_MAX_BYTES,
            "maxInflightRequests": settings.max_inflight_requests,
            "maxBufferedEvents": DEFAULT_QUEUE_SIZE,
            "heartbeatSeconds": settings.heartbeat_s,
        },
    }
