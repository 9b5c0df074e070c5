"""Feishu's event-subscription cryptography, as the open platform documents it.

With an Encrypt Key set, the body is `{"encrypt": "<base64>"}`: AES-256-CBC with key = SHA-256 of
the Encrypt Key, the first 16 bytes of the decoded blob the IV, PKCS#7 padding. Each request is
signed: `X-Lark-Signature` = hex SHA-256 of timestamp + nonce + encrypt key + the raw body.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os

from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

from claw.errors import ClawError


class CryptoError(ClawError, ValueError):
    """An `encrypt` blob that does not decrypt with this key."""


def signature(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    return hashlib.sha256(f"{timestamp}{nonce}{encrypt_key}".encode() + body).hexdigest()


def signature_ok(timestamp: str, nonce: str, encrypt_key: str, body: bytes, given: str) -> bool:
    return hmac.compare_digest(signature(timestamp, nonce, encrypt_key, body), given.strip().lower())


def decrypt(blob: str, encrypt_key: str) -> str:
    try:
        raw = base64.b64decode(blob, validate=True)
    except (binascii.Error, ValueError):
        raise CryptoError("encrypt is not base64") from None
    if len(raw) < 32 or len(raw) % 16:
        raise CryptoError("encrypt has the wrong length")
    key = hashlib.sha256(encrypt_key.encode()).digest()
    decryptor = Cipher(algorithms.AES(key), modes.CBC(raw[:16])).decryptor()
    padded = decryptor.update(raw[16:]) + decryptor.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    try:
        plain = unpadder.update(padded) + unpadder.finalize()
        return plain.decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        raise CryptoError("encrypt does not decrypt with the Encrypt Key") from None


def encrypt(plain: str, encrypt_key: str) -> str:
    """The platform's side (what a sender does); used by the tests' fake Feishu."""
    key = hashlib.sha256(encrypt_key.encode()).digest()
    iv = os.urandom(16)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(plain.encode()) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    return base64.b64encode(iv + encryptor.update(padded) + encryptor.finalize()).decode()
