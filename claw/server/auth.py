"""Gateway auth, fail closed: the token, constant-time comparison, a failed-auth limiter,
the browser Origin allowlist and the bind check.

The token comes from `CLAW_GATEWAY_TOKEN` when that is set and not blank, else from
the token file `claw init` writes. An empty or whitespace-only token counts as none.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from claw.errors import ConfigError

if TYPE_CHECKING:
    from claw.paths import Paths

TOKEN_ENV = "CLAW_GATEWAY_TOKEN"
_MAX_TRACKED_SOURCES = 10_000


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


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback addresses; False for wildcards (0.0.0.0, ::) and everything else."""
    host = host.strip().strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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


class AuthLimiter:
    """Failed-auth rate limiting per source address, loopback included.

    More than `max_failures` failures within `window_s` lock the source out for
    `lockout_s`; during the lockout even the right token is refused.
    """

    def __init__(
        self,
        max_failures: int = 10,
        window_s: float = 60.0,
        lockout_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_failures = max_failures
        self.window_s = window_s
        self.lockout_s = lockout_s
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._locked_until: dict[str, float] = {}

    def retry_after(self, source: str) -> float:
        """Seconds until `source` may try again; 0 when it is not locked out."""
        until = self._locked_until.get(source)
        if until is None:
            return 0.0
        left = until - self._clock()
        if left <= 0:
            del self._locked_until[source]
            return 0.0
        return left

    def failure(self, source: str) -> None:
        now = self._clock()
        times = self._failures.setdefault(source, deque())
        times.append(now)
        while times and times[0] < now - self.window_s:
            times.popleft()
        if len(times) >= self.max_failures:
            self._locked_until[source] = now + self.lockout_s
            times.clear()
        if len(self._failures) > _MAX_TRACKED_SOURCES:  # bounded memory under a spray of sources
            self._failures = {k: v for k, v in self._failures.items() if v and v[-1] >= now - self.window_s}

    def success(self, source: str) -> None:
        self._failures.pop(source, None)
