"""`SkillsHost`: what the skills capability asks of the gateway.

The settings (skill entries, limits, extra folders), the agents' workspaces (where workspace skills
live), and the session store, where each session keeps its snapshot of the skills it was offered.
"""

from __future__ import annotations

from typing import Protocol

from claw.gateway.host import Configured, SessionLookup, Workspaces


class SkillsHost(Configured, Workspaces, SessionLookup, Protocol):
    pass
