"""PerGateway: one object per gateway, made on first use, closed when the gateway is gone."""

from __future__ import annotations

import gc

from claw.gateway.per_gateway import PerGateway


class _Gateway:  # stands in for a Gateway: any object that can be weakly referenced
    pass


def test_one_object_per_gateway_closed_when_the_gateway_goes() -> None:
    closed: list[list[str]] = []
    made: list[_Gateway] = []

    def make(gateway: _Gateway) -> list[str]:
        made.append(gateway)
        return [f"state {len(made)}"]

    for_gateway = PerGateway(make, closed.append)
    first, second = _Gateway(), _Gateway()
    state = for_gateway(first)  # type: ignore[arg-type]
    assert for_gateway(first) is state and for_gateway(second) is not state  # type: ignore[arg-type]
    made.clear()
    del first
    gc.collect()
    assert closed == [["state 1"]]  # only the dropped gateway's object was closed
    assert len(for_gateway._objects) == 1
