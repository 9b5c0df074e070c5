"""`subagents` in config.toml's `[agents.defaults]` and `[agents.list.<id>]`: the limits of `sessions_spawn`."""

from __future__ import annotations

from pydantic import Field

from claw.settings_base import Section


class SubagentSettings(Section):
    """`sessions_spawn`: child runs in `agent:<id>:subagent:<uuid>` sessions (openclaw-spec §13)."""

    max_depth: int = Field(default=1, ge=0, le=5)
    """How deep spawning may nest: 1 lets the agent spawn but not its subagents; 0 turns spawning off."""
    max_concurrent: int = Field(default=8, ge=1, le=256)
    """Children running at once, gateway-wide (the `subagent` lane; read from `[agents.defaults]`)."""
    max_children: int = Field(default=5, ge=1, le=1000)
    """Children one session may have unfinished at once."""
    timeout_seconds: float = Field(default=600.0, gt=0)
    """A child still running this long after it started is stopped and reported as timed out."""
    model: str | None = None
    """Model ref for children; default: the child agent's own model chain."""
    allow_agents: tuple[str, ...] = ()
    """Other agents a child may be spawned as (`*` for any); the caller's own agent is always allowed."""
    skills: tuple[str, ...] | None = None
    """Skills a child may be given; unset: the child agent's own list. `sessions_spawn {skills}` narrows it."""
    memory: bool = False
    """Give children the memory section and the memory tools."""
