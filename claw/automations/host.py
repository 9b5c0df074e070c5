"""`AutomationsHost`: what the automations capability asks of the gateway.

The settings and gateway.db's location; the job's session, looked up and (for an isolated job)
reset before each run; and the job's turn, started on the `cron` lane and stopped when the
scheduler stops.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from claw.gateway.host import Configured, RunControl, SessionLookup

if TYPE_CHECKING:
    from claw.store.sessions import SessionEntry


class AutomationsHost(Configured, SessionLookup, RunControl, Protocol):
    async def reset_session(self, session_key: str) -> SessionEntry:
        """Archive the session's transcript and give it a new id (an isolated job's fresh start)."""
        ...
