"""The server's half of the handshake that is only data: what a connection is granted and the `hello-ok`
payload (exactly the fields of OpenClaw's closed HelloOk schema), with the events and connection methods
the server announces in it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from claw import __version__
from claw.protocol.scopes import OPERATOR_SCOPES
from claw.protocol.version import PROTOCOL_VERSION, SUBSCRIBE, UNSUBSCRIBE

EVENTS = ("agent", "chat", "exec.approval.requested", "exec.approval.resolved", "health",
          "plugin.approval.requested", "plugin.approval.resolved", "presence", "session.message",
          "sessions.changed", "shutdown", "tick")  # fmt: skip
CONNECTION_METHODS = (SUBSCRIBE, UNSUBSCRIBE)
"""Served by the connection itself, not the gateway (claw/server/ws_sessions.py); listed in the hello."""

SERVER_CAPABILITIES = ("published-model-catalog",)
"""OpenClaw's server capabilities claw honours: `models.list` is the catalog of the models claw's config
publishes (its agents' chains and `[models]`), which OpenClaw's `openclaw models list` requires."""


def granted_scopes(requested: list[str] | None) -> list[str]:
    """The scopes a connection gets: those asked for that exist, or all operator scopes when none are named."""
    return list(OPERATOR_SCOPES) if requested is None else sorted({s for s in requested if s in OPERATOR_SCOPES})


def hello_ok(
    conn_id: str,
    role: str,
    scopes: Iterable[str],
    methods: Iterable[str],
    snapshot: dict[str, Any],
    policy: dict[str, Any],
) -> dict[str, Any]:
    """The connect reply: protocol and server version, the methods (`methods` and the connection's own) and
    events served, the state snapshot, the negotiated role and scopes, the limits (`policy`)."""
    return {
        "type": "hello-ok",
        "protocol": PROTOCOL_VERSION,
        "server": {"version": __version__, "connId": conn_id},
        "features": {
            "methods": sorted({*methods, *CONNECTION_METHODS}),
            "events": list(EVENTS),
            "capabilities": list(SERVER_CAPABILITIES),
        },
        "snapshot": snapshot,
        "auth": {"method": "token", "role": role, "scopes": sorted(scopes)},
        "policy": policy,
    }
