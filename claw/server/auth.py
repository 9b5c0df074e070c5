"""Gateway auth, fail closed: the token, constant-time comparison, the browser checks (Origin
allowlist, Sec-Fetch-Site) and the bind check. The failed-auth limiter is `claw.server.auth_limiter`.

The token comes from `CLAW_GATEWAY_TOKEN` when that is set and not blank, else from
the token file `claw init` writes. An empty or whitespace-only token counts as none.
"""

from __future__ import annotations

import hmac
import os
import secrets
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from claw.errors import ConfigError
from claw.protocol.loopback import is_loopback
from claw.server.auth_limiter import AuthLimiter

if TYPE_CHECKING:
    from claw.paths import Paths

__all__ = ["TOKEN_ENV", "AuthLimiter", "bearer_credential", "browser_refusal", "check_bind", "create_token_file",
           "is_loopback", "origin_allowed", "resolve_token", "tokens_match"]  # fmt: skip

TOKEN_ENV = "CLAW_GATEWAY_TOKEN"
TOKEN_FILE_FIX = "delete it, then run `claw init` to write a new one (clients then need the new token)"
"""What to do about a token file that cannot be used."""
_FROM_ANOTHER_SITE = frozenset({"cross-site", "same-site"})
"""`Sec-Fetch-Site` values of a request some web page made (ports do not make sites: any page on
localhost is `same-site`); `same-origin` and `none` (typed in the address bar) are not such requests."""


def resolve_token(paths: Paths, environ: Mapping[str, str] | None = None) -> tuple[str | None, str]:
    """`(token, source)`, source being `env`, `file` or `none`; only the source may be logged."""
    env = os.environ if environ is None else environ
    value = (env.get(TOKEN_ENV) or "").strip()
    if value:
        return value, "env"
    try:
        text = paths.token_file.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None, "none"
    except OSError as exc:
        raise ConfigError(f"cannot read the gateway token file {paths.token_file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"the gateway token file {paths.token_file} is not UTF-8 text; {TOKEN_FILE_FIX}") from None
    return (text, "file") if text else (None, "none")


def create_token_file(paths: Paths) -> str:
    """Write a new random token to the token file (mode 0600, never overwriting one) and return it."""
    from claw.paths import ensure_private_dir

    ensure_private_dir(paths.token_file.parent)
    token = secrets.token_urlsafe(32)
    fd = os.open(paths.token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(token)
    return token


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
