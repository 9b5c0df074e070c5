"""Long-lived gateway services (the network server, the scheduler, channel pollers …).

A service starts after the gateway is ready and stops before it closes; the
gateway owns the order. Which services run depends on the command: `claw gateway
run` and `claw chat` start them, a one-shot `claw agent -m` starts none.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway


class GatewayService(Protocol):
    name: str

    async def start(self, gateway: Gateway) -> None:
        """Begin work; long-running loops go into tasks the service owns and stops in `stop`."""
        ...

    async def stop(self) -> None: ...
