"""Devices as OpenClaw's clients are, for the device tests: an Ed25519 key, a signed `connect`, and the
close a refused or cut connection ends with.

The proofs are signed the way openclaw-node signs them (v2 over the challenge nonce, with the
`cryptography` package directly), not with claw's own client code, so the tests check the format."""

from __future__ import annotations

import base64
import hashlib
import time
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from websockets.exceptions import ConnectionClosed

from tests.server.conftest import TOKEN, Served, Wire, connect_frame, open_wire

PROXIED = {"X-Forwarded-For": "203.0.113.7"}
"""A loopback peer that says it forwards someone else: not local, so a new device must be approved."""


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Device:
    """An Ed25519 device as openclaw-node keeps one."""

    def __init__(self) -> None:
        self.key = Ed25519PrivateKey.generate()
        raw = self.key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        self.public_key = _b64url(raw)
        self.id = hashlib.sha256(raw).hexdigest()
        self.raw = raw

    def spellings(self) -> dict[str, str]:
        """The same public key in every other form OpenClaw's device auth accepts."""
        pem = self.key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
        return {"pem": pem.decode(), "padded standard base64": base64.b64encode(self.raw).decode(),
                "base64url with blanks": f"  {self.public_key}=\n"}  # fmt: skip

    def proof(self, nonce: str, *, signed_at: int | None = None, key: Ed25519PrivateKey | None = None,
              scopes: tuple[str, ...] = ("operator.admin",), token: str = TOKEN,
              public_key: str | None = None) -> dict[str, Any]:  # fmt: skip
        """The signed `device` of `connect`; `public_key` sends the key in another spelling than base64url."""
        signed_at = int(time.time() * 1000) if signed_at is None else signed_at
        payload = "|".join(["v2", self.id, "test", "test", "operator", ",".join(scopes), str(signed_at), token, nonce])
        signature = (key or self.key).sign(payload.encode())
        return {"id": self.id, "publicKey": public_key or self.public_key, "signature": _b64url(signature),
                "signedAt": signed_at, "nonce": nonce}  # fmt: skip


async def connect_device(
    served: Served, device: Device | None, *, headers: dict[str, str] | None = None,
    ask: tuple[str, ...] = ("operator.admin",), **proof: Any,
) -> tuple[Wire, dict[str, Any]]:  # fmt: skip
    """A connection that sends `connect` asking for the scopes `ask`, with `device`'s proof (signed for
    those scopes unless `proof` names others; no device for None), and the reply to it."""
    wire = await open_wire(served.url, handshake=False, additional_headers=headers or {})
    extra: dict[str, Any] = {"scopes": list(ask)}
    if device is not None:
        extra["device"] = device.proof(wire.challenge["nonce"], **{"scopes": ask, **proof})
    await wire.send(connect_frame(**extra))
    return wire, await wire.res("c1")


async def closed(wire: Wire) -> tuple[int | None, str]:
    """Read until the server closes the connection (10 s at most per frame); its close code and reason."""
    with pytest.raises(ConnectionClosed):
        while True:
            await wire.recv()
    return wire.ws.close_code, wire.ws.close_reason or ""
