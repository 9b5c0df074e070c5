"""`AuthLimiter` on its own, with a manual clock: lockouts, their end, the memory bound, what it keeps."""

from __future__ import annotations

import hashlib
import pickle

from claw.server.auth_limiter import AuthLimiter, client_key


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_lockout_starts_after_the_limit_lasts_its_time_and_is_not_extended() -> None:
    clock = Clock()
    limiter = AuthLimiter(max_failures=3, max_address_failures=100, window_s=60, lockout_s=30, clock=clock)
    assert [limiter.failed("10.0.0.1", "stale") for _ in range(3)] == [0.0, 0.0, 0.0]  # 401, 401, 401
    assert limiter.failed("10.0.0.1", "stale") == 30.0  # then 429
    clock.now += 20
    assert limiter.failed("10.0.0.1", "stale") == 10.0  # failures during the lockout do not extend it
    assert limiter.failed("10.0.0.1", "other") == 0.0  # another credential is not that pair
    assert limiter.failed("10.0.0.2", "stale") == 0.0  # nor another address
    clock.now += 10
    assert limiter.failed("10.0.0.1", "stale") == 0.0  # over: counted afresh


def test_failures_outside_the_window_do_not_add_up() -> None:
    clock = Clock()
    limiter = AuthLimiter(max_failures=3, window_s=60, lockout_s=30, clock=clock)
    for _ in range(10):
        assert limiter.failed("10.0.0.1", "slow") == 0.0
        assert limiter.failed("10.0.0.1", "slow") == 0.0
        clock.now += 61  # two a minute never reach three in a window


def test_many_different_credentials_lock_the_address_but_only_for_wrong_ones() -> None:
    clock = Clock()
    limiter = AuthLimiter(max_failures=100, max_address_failures=5, window_s=60, lockout_s=30, clock=clock)
    assert [limiter.failed("10.0.0.1", f"guess-{n}") for n in range(5)] == [0.0] * 5
    assert limiter.failed("10.0.0.1", "guess-new") == 30.0
    assert limiter.failed("10.0.0.9", "guess-new") == 0.0
    # The limiter is only ever told about wrong credentials: the right one is never refused by it,
    # which tests/server/test_auth_lockout.py checks on a real server.


def test_memory_stays_bounded_under_many_addresses_and_credentials() -> None:
    clock = Clock()
    limiter = AuthLimiter(max_failures=3, max_address_failures=3, max_entries=500, clock=clock)
    for n in range(20_000):
        limiter.failed(f"10.{n // 65536}.{n // 256 % 256}.{n % 256}", f"credential-{n}")
        limiter.failed("192.0.2.1", f"spray-{n}")  # one address, ever new credentials
    pairs, addresses = limiter.tracked()
    assert pairs <= 500 and addresses <= 500
    assert limiter.failed("192.0.2.1", "spray-new") > 0  # the sprayer, failing most recently, is still locked
    clock.now += 121
    assert limiter.tracked() == (0, 0)  # and everything is forgotten once windows and lockouts are over


def test_the_credential_itself_is_never_kept() -> None:
    limiter = AuthLimiter()
    secretish = "my-old-token-almost-right-0123456789"
    limiter.failed("127.0.0.1", secretish)
    state = pickle.dumps(vars(limiter) | {"_key": b""})  # everything the limiter holds but its HMAC key
    assert secretish.encode() not in state
    assert hashlib.sha256(secretish.encode()).hexdigest()[:32].encode() not in state  # keyed, not a bare hash
    assert limiter.fingerprint(secretish) == limiter.fingerprint(secretish)
    assert limiter.fingerprint(secretish) != AuthLimiter().fingerprint(secretish)


def test_ipv6_clients_are_counted_by_their_slash_64() -> None:
    assert client_key("2001:db8:1:2::1") == client_key("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert client_key("2001:db8:1:3::1") != client_key("2001:db8:1:2::1")
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert client_key("::1") == "::1" and client_key("127.0.0.1") == "127.0.0.1"
    assert client_key("?") == "?"
    limiter = AuthLimiter(max_failures=100, max_address_failures=2)
    limiter.failed("2001:db8:1:2::1", "a")
    limiter.failed("2001:db8:1:2::2", "b")
    assert limiter.failed("2001:db8:1:2::3", "c") > 0
