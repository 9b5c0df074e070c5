"""A small time-bounded, size-bounded memo: inbound dedupe and idempotency keys."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class TtlCache(Generic[V]):
    """Remembers keys for `ttl` seconds, at most `max_entries` (oldest evicted first)."""

    def __init__(self, ttl: float, max_entries: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl
        self._max = max_entries
        self._clock = clock
        self._items: OrderedDict[str, tuple[float, V]] = OrderedDict()

    def get(self, key: str) -> V | None:
        self._expire()
        hit = self._items.get(key)
        return None if hit is None else hit[1]

    def put(self, key: str, value: V) -> None:
        self._items[key] = (self._clock() + self._ttl, value)
        self._items.move_to_end(key)
        while len(self._items) > self._max:
            self._items.popitem(last=False)

    def seen(self, key: str, value: V) -> bool:
        """True if `key` is already remembered; otherwise remember it and return False."""
        if self.get(key) is not None:
            return True
        self.put(key, value)
        return False

    def __len__(self) -> int:
        self._expire()
        return len(self._items)

    def _expire(self) -> None:
        now = self._clock()
        while self._items:
            key, (expires, _) = next(iter(self._items.items()))
            if expires > now:
                break
            del self._items[key]
