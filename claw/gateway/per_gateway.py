"""`PerGateway`: one object of an extension's per gateway, made on first use, let go with the gateway.

Extensions keep their state (the memory manager, the automation and channel managers, the subagent
registry) beside the gateway rather than on it, so the core does not know them. The objects live in
a weak mapping: a gateway that is dropped takes its object with it, and its `close` (if given) runs.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway

T = TypeVar("T")


class PerGateway(Generic[T]):
    """`for_gateway = PerGateway(make, close=…)`, then `for_gateway(gateway)` anywhere."""

    def __init__(self, make: Callable[[Gateway], T], close: Callable[[T], object] | None = None) -> None:
        self._make = make
        self._close = close
        self._objects: weakref.WeakKeyDictionary[Gateway, T] = weakref.WeakKeyDictionary()

    def __call__(self, gateway: Gateway) -> T:
        found = self._objects.get(gateway)
        if found is None:
            found = self._objects[gateway] = self._make(gateway)
            if self._close is not None:
                # The finalizer must not hold the gateway (or a bound method of it): only the object.
                weakref.finalize(gateway, self._close, found)
        return found
