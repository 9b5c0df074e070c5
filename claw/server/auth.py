"""Gateway auth, fail closed: the token, constant-time comparison, the browser checks (Origin
allowlist, Sec-Fetch-Site) and the bind check. The failed-auth limiter is `claw.server.auth_limiter`.

Where the token comes from (`CLAW_GATEWAY_TOKEN`, else the token file) is `claw.gateway_token`, below the
server, since the channels and `claw doctor` read it too; its names are offered here as well.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import Iterable

from claw.errors import ConfigError
from claw.gateway_token import TOKEN_ENV, create_token_file, resolve_token
from claw.protocol.loopback import is_loopback
from claw.server.auth_limiter import AuthLimiter

__all__ = ["TOKEN_ENV", "AuthLimiter", "bearer_credential", "browser_refusal", "check_bind", "create_token_file",
           "is_loopback", "origin_allowed", "own_origins", "page_credential", "resolve_token",
           "tokens_match"]  # fmt: skip

_FROM_ANOTHER_SITE = frozenset({"cross-site", "same-site"})
"""`Sec-Fetch-Site` values of a request some web page made (ports do not make sites: any page on
localhost is `same-site`); `same-origin` and `none` (typed in the address bar) are not such requests."""


def tokens_match(given: object, expected: str) -> bool:
    """Constant-time comparison, on bytes (hmac.compare_digest refuses non-ASCII str)."""
    candidate = given.encode("utf-8") if isinstance(given, str) else b""
    return hmac.compare_digest(candidate, expected.encode("utf-8")) and bool(candidate)


def check_bind(bind: str, token: str | None) -> None:
    """Refuse to expose the gateway beyond loopback without a token."""
    if not is_loopback(bind) and not (token and token.strip()):
        raise ConfigError(
            f"refusing to bind the gateway to {bind} without a token: run `claw init` or set "
            f"{TOKEN_ENV}, or bind 127.0.0.1"
        )


def origin_allowed(origin: str | None, allowed: Iterable[str]) -> bool:
    """No Origin (a CLI or script) passes, it still needs the token; a browser Origin must be listed exactly."""
    if origin is None:
        return True
    wanted = origin.strip().lower().rstrip("/")
    return any(wanted == item.strip().lower().rstrip("/") for item in allowed)


def browser_refusal(origin: str | None, fetch_site: str | None, allowed: Iterable[str]) -> str | None:
    """Why a request made by a web page is refused (None: it is not refused here).

    A browser `Origin` must be on the allowlist. A page's `<img>`, `<script>` or form sends no
    Origin on a GET, but browsers mark it `Sec-Fetch-Site: cross-site` (or `same-site`), so such a
    request is refused too unless its Origin is listed. Neither is an auth failure: nothing is counted.
    """
    if origin is not None:
        return None if origin_allowed(origin, allowed) else "origin not allowed"
    if (fetch_site or "").strip().lower() in _FROM_ANOTHER_SITE:
        return "cross-site request refused"
    return None


def bearer_credential(header: str | None) -> str | None:
    """What an `Authorization` header presents as the token; None when it presents nothing (no header,
    or an empty value), which is refused but never counted as a failed attempt. A non-Bearer scheme
    presents its whole value, so it is a wrong credential like any other."""
    if header is None or not header.strip():
        return None
    scheme, _, given = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return header.strip()
    return given.strip() or None


def page_credential(header: str | None) -> str | None:
    """The token a browser presents for a page: `Basic` (any user name, the token as password: what a
    browser's own login prompt sends) or `Bearer`; None when nothing is presented."""
    if header is None or not header.strip():
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "basic":
        return bearer_credential(header)
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return header.strip()  # presented, but not a credential: wrong, like any other
    return decoded.partition(":")[2] or None


def own_origins(bind: str, port: int) -> tuple[str, ...]:
    """The `Origin`s of pages this server serves itself on loopback (`http://127.0.0.1:<port>` …): allowed like
    listed ones. Only loopback names: a page reached by another name (a DNS name pointed at this address to
    get around the Origin check) is not this server's, and other hosts' origins must be listed."""
    if not is_loopback(bind) and bind not in ("0.0.0.0", "::", ""):
        return ()
    return tuple(f"http://{host}:{port}" for host in ("127.0.0.1", "localhost", "[::1]"))
