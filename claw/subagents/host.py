"""`SubagentsHost`: what the subagents capability asks of the gateway.

Sessions to create and read (a child's, the parent's transcript for a note), runs to start on the
`subagent` and `nested` lanes, follow and stop, the lifecycle events that draw the subagent tree,
and a place for each child's supervisor task, so that a closing gateway waits for it.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Protocol

from claw.gateway.host import RunControl, RunWatch, SessionLookup

if TYPE_CHECKING:
    from claw.config import Config
    from claw.gateway.runs import Run


class SubagentsHost(SessionLookup, RunControl, RunWatch, Protocol):
    @property
    def config(self) -> Config:
        """The agents a child may run as (and `sessions_list` may look in)."""
        ...

    def active_runs(self, session_key: str | None = None) -> list[Run]:
        """The session's runs that have not finished (`sessions_list` shows which are running)."""
        ...

    def publish_lifecycle(self, run: Run, data: dict[str, Any]) -> None:
        """Add a lifecycle event (`spawned`, `subagent`) to a run's stream while it is still going."""
        ...

    def track(self, task: asyncio.Task[Any]) -> None:
        """Keep a background task until it ends; the gateway's close waits for it after the runs."""
        ...
