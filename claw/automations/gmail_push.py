"""Gmail's push notifications: a Pub/Sub push subscription POSTs to `/automations/gmail` when a watched
mailbox changes.

The contract (Gmail API "push notifications", Pub/Sub "push subscriptions"): the body is
`{"message": {"data": <base64 JSON {"emailAddress", "historyId"}>, "messageId", "publishTime"},
"subscription"}`, and an authenticated subscription sends `Authorization: Bearer <OIDC JWT>`, signed (RS256)
by Google with a key from its published certificates. claw checks the signature, the issuer, the audience
(`automations.gmailAudience`: the audience set on the subscription, by default its endpoint URL), the expiry
and, when `automations.gmailServiceAccount` is set, that the token is that service account's, verified.
A push names a mailbox and a history id, not a message: the run gets both (as untrusted content), and a
history id already taken is acknowledged and runs nothing, so a redelivered push runs once.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from claw.automations.trigger_refusal import Refused
from claw.untrusted import wrap_untrusted

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

    from claw.settings.automations import AutomationSettings

ISSUERS = ("https://accounts.google.com", "accounts.google.com")
CLOCK_SKEW_SECONDS = 300
KEYS_MAX_AGE_SECONDS = 3600.0
KEYS_REFETCH_SECONDS = 60.0
"""An unknown key id refetches the certificates (Google rotates them), at most this often."""
FETCH_TIMEOUT_SECONDS = 10.0


def _b64url(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


class GoogleKeys:
    """Google's token-signing keys (a JWKS), fetched from `automations.gmailCertsUrl` and kept an hour."""

    def __init__(self) -> None:
        self._keys: dict[str, RSAPublicKey] = {}
        self._fetched_at = 0.0

    async def key(self, kid: str, url: str) -> RSAPublicKey | None:
        now = time.monotonic()
        stale = now - self._fetched_at > KEYS_MAX_AGE_SECONDS
        if stale or (kid not in self._keys and now - self._fetched_at > KEYS_REFETCH_SECONDS):
            self._keys, self._fetched_at = await _fetch_keys(url), now
        return self._keys.get(kid)


async def _fetch_keys(url: str) -> dict[str, RSAPublicKey]:
    import aiohttp
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicNumbers

    try:
        timeout = aiohttp.ClientTimeout(total=FETCH_TIMEOUT_SECONDS)
        async with aiohttp.ClientSession(timeout=timeout) as session, session.get(url) as response:
            if response.status != 200:
                raise Refused(503, f"cannot fetch Google's signing keys: HTTP {response.status}")
            document = await response.json(content_type=None)
    except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
        raise Refused(503, f"cannot fetch Google's signing keys: {type(exc).__name__}") from None
    keys: dict[str, RSAPublicKey] = {}
    for jwk in document.get("keys", []) if isinstance(document, dict) else []:
        if isinstance(jwk, dict) and jwk.get("kty") == "RSA" and isinstance(jwk.get("kid"), str):
            try:
                n, e = (int.from_bytes(_b64url(jwk[k]), "big") for k in ("n", "e"))
                keys[jwk["kid"]] = RSAPublicNumbers(e, n).public_key()
            except (KeyError, TypeError, ValueError, binascii.Error):
                continue
    return keys


async def verify_token(
    token: str, settings: AutomationSettings, keys: GoogleKeys, now: float | None = None
) -> dict[str, Any]:
    """The claims of a valid push token; `Refused(401)` with the reason otherwise."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.padding import PKCS1v15
    from cryptography.hazmat.primitives.hashes import SHA256

    try:
        head_b64, claims_b64, sig_b64 = token.split(".")
        header = json.loads(_b64url(head_b64))
        claims = json.loads(_b64url(claims_b64))
        sig = _b64url(sig_b64)
    except (ValueError, binascii.Error):
        raise Refused(401, "malformed token") from None
    if not isinstance(header, dict) or header.get("alg") != "RS256" or not isinstance(claims, dict):
        raise Refused(401, "token not signed with RS256")
    key = await keys.key(str(header.get("kid")), settings.gmail_certs_url)
    if key is None:
        raise Refused(401, "token signed with an unknown key")
    try:
        key.verify(sig, f"{head_b64}.{claims_b64}".encode("ascii"), PKCS1v15(), SHA256())
    except InvalidSignature:
        raise Refused(401, "invalid token signature") from None
    now = time.time() if now is None else now
    if claims.get("iss") not in ISSUERS:
        raise Refused(401, "token not issued by Google")
    if claims.get("aud") != settings.gmail_audience:
        raise Refused(401, "token for another audience")
    if not isinstance(claims.get("exp"), int | float) or claims["exp"] + CLOCK_SKEW_SECONDS < now:
        raise Refused(401, "token expired")
    account = settings.gmail_service_account
    if account and (claims.get("email") != account or claims.get("email_verified") is not True):
        raise Refused(401, "token of another service account")
    return claims


@dataclass(frozen=True, slots=True)
class GmailPush:
    """One verified push: the mailbox, its new history id, and Pub/Sub's ids for it."""

    address: str
    history_id: str
    message_id: str
    publish_time: str
    subscription: str

    @classmethod
    async def verified(
        cls, headers: Mapping[str, str], body: bytes, settings: AutomationSettings, keys: GoogleKeys
    ) -> GmailPush:
        if not settings.gmail_audience:
            raise Refused(503, "Gmail pushes are not set up: set automations.gmailAudience")
        scheme, _, token = (headers.get("Authorization") or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Refused(401, "missing bearer token")
        await verify_token(token.strip(), settings, keys)
        return cls.parse(body)

    @classmethod
    def parse(cls, body: bytes) -> GmailPush:
        try:
            envelope = json.loads(body)
            message = envelope["message"]
            data = json.loads(base64.b64decode(message["data"], validate=True))
            address, history = data["emailAddress"], data["historyId"]
        except (ValueError, KeyError, TypeError, binascii.Error):
            raise Refused(400, "not a Gmail push notification") from None
        if not isinstance(address, str) or not isinstance(history, int | str) or not str(history).isdigit():
            raise Refused(400, "not a Gmail push notification")
        return cls(address.strip().lower(), str(history), str(message.get("messageId", "")),
                   str(message.get("publishTime", "")), str(envelope.get("subscription", "")))  # fmt: skip

    def event(self) -> str:
        detail = {"emailAddress": self.address, "historyId": self.history_id, "messageId": self.message_id,
                  "publishTime": self.publish_time, "subscription": self.subscription}  # fmt: skip
        return wrap_untrusted(json.dumps(detail, indent=1), "Email", notice=True)
