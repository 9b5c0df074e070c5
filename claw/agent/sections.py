"""Prompt sections contributed by capabilities beyond the core (memory recall, skills, …).

A section is rendered for each model call of a run, after the bootstrap files, in the
order the sections were registered (DESIGN.md: memory, then skills). A `RunEnvSource`
is asked once per run, with the same request, for environment variables the run's
commands get (`ToolContext.skill_env`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from claw.agent.run_scope import RunScope
from claw.config import AgentSettings


@dataclass(frozen=True, slots=True)
class SectionRequest:
    """What a section may look at to decide what to say for this turn."""

    agent_id: str
    session_key: str
    workspace: Path
    settings: AgentSettings
    message: str
    """The text of the message that started the run (for recall)."""
    channel: str
    sender_id: str
    scope: RunScope = field(default_factory=RunScope)
    """The session's limits (a subagent's): sections it names are left out, `skills` narrows the skills list."""


class PromptSectionSource(Protocol):
    """Produces one named section of the system prompt, or None to leave it out this turn."""

    name: str

    async def render(self, request: SectionRequest) -> str | None: ...


class RunEnvSource(Protocol):
    """Supplies environment variables for the commands of one run (`exec`), e.g. those skills are configured
    with; asked once per run. The values may be secrets: a source must never log them."""

    name: str

    async def env(self, request: SectionRequest) -> Mapping[str, str]: ...
