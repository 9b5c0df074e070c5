"""`AgentEnv`: one agent as the runtime sees it — its settings, workspace and session store.

The core builds one per run (`Gateway.agent_env`) and hands it down; everything in the runtime
that needs to know about an agent takes this instead of the gateway.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from claw.config import AgentSettings
from claw.store.sessions import SessionStore


@dataclass(frozen=True, slots=True)
class AgentEnv:
    """What the runner needs to know about one agent."""

    agent_id: str
    settings: AgentSettings
    workspace: Path
    sessions: SessionStore
    read_roots: tuple[Path, ...] = ()
    """Directories outside the workspace that `read` may read (installed and bundled skills)."""
