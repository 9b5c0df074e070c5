"""`UsageHost`: what the usage capability asks of the gateway: its settings, gateway.db's location,
and the model router, to watch every call it makes (`observers`) and to check budgets before each (`guards`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from claw.gateway.host import Configured

if TYPE_CHECKING:
    from claw.providers.failover import ModelRouter


class UsageHost(Configured, Protocol):
    @property
    def router(self) -> ModelRouter:
        """The router every model call of the gateway goes through."""
        ...
