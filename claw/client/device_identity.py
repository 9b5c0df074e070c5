"""`DeviceIdentity`: this machine's Ed25519 key, with which `RemoteClient` signs a gateway's challenge.

Kept at `<data dir>/identity/device.json` (0600, in a 0700 directory) and made on first use, so a
gateway that approved this device (`claw devices approve ID` on its host) knows it at every later
connect. The id is the SHA-256 of the raw public key, as OpenClaw derives it; the signed string is
OpenClaw's v3 (claw/protocol/device_proof.py has both halves' format).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claw.protocol.device_proof import SignedFields, b64url, device_id_for, payloads


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    device_id: str
    public_key: str
    """Raw public key, base64url without padding (the wire form)."""
    _private: bytes
    """Raw 32-byte private key."""

    @classmethod
    def generate(cls) -> DeviceIdentity:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        key = Ed25519PrivateKey.generate()
        raw_private = key.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
        )
        raw_public = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return cls(device_id_for(raw_public), b64url(raw_public), raw_private)

    @classmethod
    def load_or_create(cls, data_dir: Path) -> DeviceIdentity:
        """This machine's identity under `data_dir`; a new one is written when there is none (or it is unreadable)."""
        path = data_dir / "identity" / "device.json"
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
            return cls(stored["deviceId"], stored["publicKey"], bytes.fromhex(stored["privateKey"]))
        except (OSError, ValueError, KeyError, TypeError):
            pass
        identity = cls.generate()
        try:
            from claw.paths import ensure_private_dir
            from claw.store.atomic import atomic_write_json

            ensure_private_dir(path.parent)
            atomic_write_json(path, identity._stored(), mode=0o600)
        except OSError:
            pass  # an identity that is not kept still signs; the gateway asks to approve it again next time
        return identity

    def _stored(self) -> dict[str, Any]:
        return {"version": 1, "deviceId": self.device_id, "publicKey": self.public_key,
                "privateKey": self._private.hex()}  # fmt: skip

    def proof(self, nonce: str, signed_at: int, fields: SignedFields) -> dict[str, Any]:
        """`connect.params.device` for the challenge `nonce` (signed at the challenge's `ts`)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        v3, _v2 = payloads(self.device_id, fields, signed_at, nonce)
        signature = Ed25519PrivateKey.from_private_bytes(self._private).sign(v3.encode("utf-8"))
        return {"id": self.device_id, "publicKey": self.public_key, "signature": b64url(signature),
                "signedAt": signed_at, "nonce": nonce}  # fmt: skip


def default_data_dir() -> Path:
    """Where the CLI keeps its identity: CLAW_HOME's data dir (claw.paths), without importing config."""
    from claw.paths import Paths

    return Paths.from_env(dict(os.environ)).data_dir
