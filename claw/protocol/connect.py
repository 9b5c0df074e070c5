"""The client's half of the handshake: the `connect` request that answers the server's `connect.challenge`
(OpenClaw's ConnectParams, which `claw.protocol.frames.ConnectParams` checks on the server's side).

Light to import (no pydantic, no cryptography): a one-shot `claw agent -m` against a running gateway builds it.
"""

from __future__ import annotations

import platform
from typing import Any, Protocol

from claw import __version__
from claw.protocol.device_proof import SignedFields
from claw.protocol.scopes import OPERATOR_SCOPES
from claw.protocol.version import PROTOCOL_VERSION


class Prover(Protocol):
    """A device identity that signs the challenge (`claw.client.device_identity.DeviceIdentity`)."""

    def proof(self, nonce: str, signed_at: int, fields: SignedFields) -> dict[str, Any]: ...


_CLIENT_KINDS = {"cli": ("cli", "cli"), "tui": ("openclaw-tui", "ui")}
"""claw's channel → OpenClaw's (client.id, client.mode); any other program is a `gateway-client` backend."""


def connect_request(
    token: str,
    channel: str,
    version: str,
    approvals: bool,
    identity: Prover | None,
    challenge: dict[str, Any],
    scopes: list[str] | None,
) -> dict[str, Any]:
    """The `connect` request answering `challenge` (`{nonce, ts}`)."""
    client_id, mode = _CLIENT_KINDS.get(channel, ("gateway-client", "backend"))
    wanted = list(OPERATOR_SCOPES) if scopes is None else scopes
    system = platform.system().lower() or "unknown"
    params: dict[str, Any] = {
        "minProtocol": PROTOCOL_VERSION,
        "maxProtocol": PROTOCOL_VERSION,
        "client": {"id": client_id, "version": version, "platform": system, "mode": mode, "displayName": "claw"},
        "role": "operator",
        "scopes": wanted,
        "caps": ["approvals"] if approvals else [],
        "auth": {"token": token},
        "userAgent": f"claw/{__version__}",
    }
    if identity is not None:
        nonce, signed_at = str(challenge.get("nonce", "")), int(challenge.get("ts") or 0)
        fields = SignedFields(client_id, mode, "operator", wanted, token, system)
        params["device"] = identity.proof(nonce, signed_at, fields)
    return {"type": "req", "id": "connect", "method": "connect", "params": params}
