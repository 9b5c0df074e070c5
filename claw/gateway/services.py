"""Long-lived gateway services (the network server, the scheduler, channel pollers …).

A service starts after the gateway is ready and stops before it closes; the
gateway owns the order. Which services run depends on the command: `claw gateway
run` and `claw chat` start them, a one-shot `claw agent -m` starts none.
"""

from __future__ import annotations

from typing import Any, Protocol


class GatewayService(Protocol):
    name: str

    async def start(self, gateway: Any) -> None:
        """Begin work; long-running loops go into tasks the service owns and stops in `stop`. `gateway` is the
        one starting it, typed `Any` here: each service types it by the narrow protocol of what it uses
        (`ChannelsHost`, `AutomationsHost` …)."""
        ...

    async def stop(self) -> None: ...
