"""`AuthLimiter`: failed-auth limiting that can slow a guesser but never lock the owner out.

It is consulted only for a request that presented a credential and had it refused, so the right
token and a valid webhook signature never reach it, whatever happened before; a request that
presented nothing is answered 401 by its caller and never reaches it either (an `<img>` on any web
page can send those by the thousand: counting them would let any page lock the owner out).

A wrong credential is counted twice: under (client address, credential fingerprint) and under the
client address alone. Either count reaching its limit within `window_s` locks that key for
`lockout_s`, during which wrong credentials from there are answered 429 and are not counted again;
the right one is never asked about, so it passes from a locked-out address too.
The token is 32 random bytes, so guessing it is hopeless either way; what the lockout buys is that
a stale token retried in a loop, or a spray of guesses, is told to back off and costs one log line
per lockout instead of one per request.

The credential itself is never kept: only an HMAC of it under a key made when the limiter is, so
neither a memory dump nor a log line can be turned back into a near-miss of the token. Both maps are
bounded (`max_entries` each, least recently failed evicted first, entries forgotten once their
window and lockout are over); IPv6 clients are counted by /64, the block one host usually holds.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from claw.gateway.ttl_cache import TtlCache

log = logging.getLogger(__name__)


@dataclass(slots=True)
class _Count:
    """Failures of one key in its current window, and until when it is locked (0: not locked)."""

    window_start: float
    failures: int = 0
    locked_until: float = 0.0


class AuthLimiter:
    """See the module docstring. `failed()` is the one entry point; the clock is injectable for tests."""

    def __init__(
        self,
        max_failures: int = 10,
        max_address_failures: int = 50,
        window_s: float = 60.0,
        lockout_s: float = 60.0,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_failures = max_failures
        """Failures of one credential from one address within `window_s` that lock that pair out."""
        self.max_address_failures = max_address_failures
        """Failures of any credentials from one address within `window_s` that lock the address's
        wrong credentials out (a spray of different guesses); its right token still passes."""
        self.window_s = window_s
        self.lockout_s = lockout_s
        self.max_entries = max_entries
        """Cap of each map (pairs, addresses): memory stays bounded under a flood of either."""
        self._clock = clock
        self._key = secrets.token_bytes(32)
        ttl = max(window_s, lockout_s)
        self._pairs: TtlCache[_Count] = TtlCache(ttl, max_entries, clock)
        self._addresses: TtlCache[_Count] = TtlCache(ttl, max_entries, clock)

    def fingerprint(self, credential: str | bytes) -> str:
        """A short keyed hash of `credential`: stable for this limiter, meaningless outside it."""
        raw = credential.encode("utf-8", "surrogatepass") if isinstance(credential, str) else credential
        return hmac.new(self._key, raw, hashlib.sha256).hexdigest()[:32]

    def failed(self, remote: str, credential: str | bytes) -> float:
        """Record that `remote` presented `credential` and it was wrong. Returns the seconds it must
        wait (answer 429 with Retry-After) or 0 (answer 401): the caller decides nothing else. The
        failure that reaches a limit is answered 401 like the others; the lockout starts after it,
        and failures during it are not counted (they cannot extend it)."""
        now = self._clock()
        address = client_key(remote)
        fingerprint = self.fingerprint(credential)
        pair = f"{address}|{fingerprint}"
        by_address, by_pair = self._current(self._addresses, address, now), self._current(self._pairs, pair, now)
        wait = max(by_address.locked_until, by_pair.locked_until) - now
        if wait > 0:  # keep whoever is locked out remembered while they go on (a flood must not evict them)
            for table, key, count in ((self._addresses, address, by_address), (self._pairs, pair, by_pair)):
                if count.locked_until > now:
                    table.put(key, count)
            return wait
        if self._count(self._pairs, pair, by_pair, self.max_failures, now):
            log.warning("auth: %s presented one wrong credential (%s…) too often; refused for %.0f s",
                        address, fingerprint[:8], self.lockout_s)  # fmt: skip
        if self._count(self._addresses, address, by_address, self.max_address_failures, now):
            log.warning("auth: too many wrong credentials from %s; its wrong ones are refused for %.0f s",
                        address, self.lockout_s)  # fmt: skip
        return 0.0

    def tracked(self) -> tuple[int, int]:
        """How many (address, credential) pairs and addresses are remembered now."""
        return len(self._pairs), len(self._addresses)

    def _current(self, table: TtlCache[_Count], key: str, now: float) -> _Count:
        """The key's count, or a fresh one when it has none or its window and lockout are over."""
        count = table.get(key)
        if count is None or (count.locked_until <= now and now - count.window_start >= self.window_s):
            return _Count(window_start=now)
        return count

    def _count(self, table: TtlCache[_Count], key: str, count: _Count, limit: int, now: float) -> bool:
        """Add one failure; True when it starts a lockout."""
        count.failures += 1
        locks = count.failures >= limit
        if locks:
            count.locked_until, count.failures, count.window_start = now + self.lockout_s, 0, now
        table.put(key, count)  # refreshes its place: the least recently failed is evicted first
        return locks


def client_key(remote: str) -> str:
    """The address failures are counted under: the address itself, an IPv4-mapped IPv6 address as
    IPv4, other IPv6 addresses by their /64 (one host usually holds a whole /64 and can pick any)."""
    try:
        address = ipaddress.ip_address(remote.strip("[]"))
    except ValueError:
        return remote  # not an IP (a Unix socket, or unknown): counted as given
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        if not address.is_loopback:
            return str(ipaddress.IPv6Network(f"{address}/64", strict=False))
    return str(address)
