"""Device identity proofs, as OpenClaw's clients sign them: Ed25519 over the challenge.

A device is an Ed25519 key pair; its id is the SHA-256 (hex) of the raw 32-byte public key, which
travels base64url without padding (a PEM is accepted too). In `connect` it signs, with the server's
challenge nonce inside, one of

    v3|deviceId|client.id|client.mode|role|scopes,joined|signedAt|token|nonce|platform|deviceFamily
    v2|deviceId|client.id|client.mode|role|scopes,joined|signedAt|token|nonce

(platform and deviceFamily trimmed and lower-cased; `token` the shared token presented, or empty).
A proof is refused when the id is not the key's, the time is more than `SKEW_MS` off, the nonce is
not this connection's challenge (a replayed proof) or the signature does not verify. `sign()` is the
client half, used by claw's `RemoteClient` (claw/client/device_identity.py).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from claw.errors import ClawError

SKEW_MS = 120_000
"""How far `signedAt` may be from the gateway's clock (OpenClaw's DEVICE_SIGNATURE_SKEW_MS)."""


class DeviceProofError(ClawError):
    """Why a proof was refused: `reason` is OpenClaw's `details.reason`, `code` its `details.code`."""

    def __init__(self, code: str, reason: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SignedFields:
    """What the signature covers besides the device: who the client says it is and what it asks for."""

    client_id: str
    client_mode: str
    role: str
    scopes: Sequence[str]
    token: str | None
    platform: str = ""
    device_family: str | None = None


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_decode(text: str) -> bytes:
    if len(text) > 4096:
        raise ValueError("too long")
    bare = text.replace("+", "-").replace("/", "_").rstrip("=")
    return base64.urlsafe_b64decode(bare + "=" * (-len(bare) % 4))


def raw_public_key(public_key: str) -> bytes:
    """The 32 raw key bytes from base64url (OpenClaw's wire form) or a PEM; ValueError if neither."""
    if "BEGIN" in public_key:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

        key = serialization.load_pem_public_key(public_key.encode())
        if not isinstance(key, Ed25519PublicKey):
            raise ValueError("not an Ed25519 key")
        return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    try:
        raw = _b64url_decode(public_key.strip())
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None
    if len(raw) != 32:
        raise ValueError("an Ed25519 public key is 32 bytes")
    return raw


def device_id_for(raw_key: bytes) -> str:
    return hashlib.sha256(raw_key).hexdigest()


def _norm(value: str | None) -> str:
    return (value or "").strip().lower()


def payloads(device_id: str, fields: SignedFields, signed_at: int, nonce: str) -> tuple[str, str]:
    """The v3 and v2 strings a device may have signed."""
    base = [device_id, fields.client_id, fields.client_mode, fields.role, ",".join(fields.scopes),
            str(signed_at), fields.token or "", nonce]  # fmt: skip
    v3 = "|".join(["v3", *base, _norm(fields.platform), _norm(fields.device_family)])
    return v3, "|".join(["v2", *base])


def verify(
    device_id: str, public_key: str, signature: str, signed_at: int, nonce: str,
    fields: SignedFields, *, expected_nonce: str, now_ms: int,
) -> bytes:  # fmt: skip
    """Check one proof; return the device's raw public key, or raise `DeviceProofError`."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        raw = raw_public_key(public_key)
    except ValueError:
        code = "DEVICE_AUTH_PUBLIC_KEY_INVALID"
        raise DeviceProofError(code, "device-public-key", "device public key invalid") from None
    if device_id_for(raw) != device_id.strip().lower():
        raise DeviceProofError("DEVICE_AUTH_DEVICE_ID_MISMATCH", "device-id-mismatch", "device identity mismatch")
    if abs(now_ms - signed_at) > SKEW_MS:
        raise DeviceProofError("DEVICE_AUTH_SIGNATURE_EXPIRED", "device-signature-stale", "device signature expired")
    if not nonce.strip():
        raise DeviceProofError("DEVICE_AUTH_NONCE_REQUIRED", "device-nonce-missing", "device nonce required")
    if nonce.strip() != expected_nonce:
        raise DeviceProofError("DEVICE_AUTH_NONCE_MISMATCH", "device-nonce-mismatch", "device nonce mismatch")
    try:
        sig = _b64url_decode(signature)
    except (binascii.Error, ValueError):
        sig = b""
    key = Ed25519PublicKey.from_public_bytes(raw)
    for payload in payloads(device_id, fields, signed_at, nonce.strip()):
        try:
            key.verify(sig, payload.encode("utf-8"))
            return raw
        except InvalidSignature:
            continue
    raise DeviceProofError("DEVICE_AUTH_SIGNATURE_INVALID", "device-signature", "device signature invalid")
