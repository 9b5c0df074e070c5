"""`ServerSettings`: everything the network server needs to know, checked before anything listens."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from claw.errors import ConfigError
from claw.server.auth import TOKEN_ENV, check_bind
from claw.server.auth_limiter import AuthLimiter
from claw.settings_base import check_bind_host

if TYPE_CHECKING:
    from claw.config import GatewaySettings

PRE_AUTH_MAX_BYTES = 64 * 1024


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Where to listen, the token, and the limits. Construction fails without a token (with a bind-specific
    message for non-loopback addresses), so nothing ever listens unauthenticated."""

    token: str | None
    bind: str = "127.0.0.1"
    port: int = 18789
    allowed_origins: tuple[str, ...] = ()
    control_ui_root: Path | None = None
    """A Control UI build served at `/` (claw/web/control_ui.py); None: `/` leads to the web chat."""
    max_payload_bytes: int = 25 * 1024 * 1024
    """Largest WebSocket frame once a connection is authenticated (OpenClaw's 25 MiB); before its
    `connect` succeeds every connection is held to `PRE_AUTH_MAX_BYTES`, unless the upgrade request
    itself carried the token (`Authorization: Bearer`)."""
    max_buffered_bytes: int = 50 * 1024 * 1024
    """Announced in the hello as `policy.maxBufferedBytes` (OpenClaw's 50 MiB): what a client may queue."""
    tick_interval_s: float = 30.0
    """A `tick` event goes to every connection this often; OpenClaw's clients close after 2× silence."""
    health_interval_s: float = 60.0
    """How often connected clients get a `health` event (OpenClaw refreshes its health snapshot about as often)."""
    max_body_bytes: int = 20 * 1024 * 1024
    handshake_timeout_s: float = 10.0
    """A client that has not sent `connect` by then is closed; so is a connection that has not sent a
    request's full HTTP headers by then (a slowloris dribbling bytes), or that sits idle between requests."""
    max_pending_handshakes: int = 256
    """Connections not yet authenticated (at most 64 KiB buffered each), across all sources; more get HTTP 503."""
    max_inflight_requests: int = 64
    """Requests one connection may have running at once; the next waits (the connection reads nothing more
    meanwhile, so a client sending faster is slowed by TCP back-pressure)."""
    max_queued_events: int = 32_768
    """Broadcast events (chat, presence, health, approvals, session lists) waiting to go to one connection; a
    client that lets more pile up is closed as too slow (1013). Measured: in 100 clients x 10 turns every
    connection had ~6,000 waiting at its peak (each turn's `chat` events go to every client). The queue holds
    references to payloads all connections share (~70 bytes an event), so this bound is a memory backstop;
    a client that reads nothing at all is cut after `send_timeout_s` anyway."""
    send_timeout_s: float = 30.0
    """A client that does not take a frame within this time is closed as too slow."""
    heartbeat_s: float = 30.0
    approval_timeout_s: float = 300.0
    devices_check_s: float = 0.5
    """How often the devices file is checked for a change (a stat); a device revoked or removed by
    `claw devices` loses its open connections within this time (claw/server/device_watch.py)."""
    """How long an exec approval question waits for a connected client before the fallback applies."""
    limiter: AuthLimiter = field(default_factory=AuthLimiter)
    """Counts wrong credentials (never missing or right ones) per address and credential; its knobs
    (failures per credential and per address, window, lockout, memory cap) are its constructor's."""

    def __post_init__(self) -> None:
        try:  # config.toml's gateway.bind is checked at load; this is for `--bind`
            check_bind_host(self.bind)
        except ValueError as exc:
            raise ConfigError(f"bind address {self.bind!r}: {exc}") from None
        check_bind(self.bind, self.token)
        if not (self.token and self.token.strip()):  # fail closed on loopback too: no token, no server
            raise ConfigError(f"the gateway server needs a token: run `claw init` or set {TOKEN_ENV}")

    @classmethod
    def from_config(
        cls, gateway: GatewaySettings, token: str | None, *, bind: str | None = None, port: int | None = None
    ) -> ServerSettings:
        """Config values, with command-line `bind`/`port` taking precedence."""
        return cls(
            token=token,
            bind=bind or gateway.bind,
            port=gateway.port if port is None else port,
            allowed_origins=tuple(gateway.allowed_origins),
            control_ui_root=gateway.control_ui.root,
            max_payload_bytes=gateway.max_payload_bytes,
            max_body_bytes=gateway.max_body_bytes,
            handshake_timeout_s=gateway.handshake_timeout_seconds,
        )
