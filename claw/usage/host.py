"""`UsageHost`: what the usage capability asks of the gateway: its settings, gateway.db's location,
the model router, to watch every call it makes (`observers`) and to check budgets before each (`guards`),
and the run a call belongs to, to tell it live that a `warn` budget's limit was reached (a `budget` event)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from claw.gateway.host import Configured

if TYPE_CHECKING:
    from claw.gateway.runs import Run
    from claw.providers.failover import ModelRouter


class UsageHost(Configured, Protocol):
    @property
    def router(self) -> ModelRouter:
        """The router every model call of the gateway goes through."""
        ...

    def find_run(self, run_id: str) -> Run | None:
        """A running or recently finished run."""
        ...

    def publish_lifecycle(self, run: Run, data: dict[str, Any]) -> None:
        """Add a lifecycle event (`budget`) to a run's stream while it is still going."""
        ...
