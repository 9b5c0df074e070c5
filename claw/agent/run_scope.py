"""`RunScope`: what the runs of one session may see and use, when that is less than the whole agent.

A subagent session is narrowed when it is spawned (claw/subagents/): fewer tools, only the skills
it was given, no memory section unless granted. The scope lives in the session entry's
`extra["scope"]`, so every run in that session — the child's own turn, a later `sessions_send`,
an announcement from a grandchild — gets the same limits. A session without one is unrestricted.

A subagent session is also recognised by its key, `agent:<agentId>:subagent:<uuid>`
(claw/vocab/session_keys.py): its prompt carries fewer bootstrap files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

SCOPE_KEY = "scope"
SUBAGENT_BOOTSTRAP_FILES = ("AGENTS.md",)
"""The only bootstrap file a subagent session's prompt carries (openclaw-spec §4.2, [N])."""


@dataclass(frozen=True, slots=True)
class RunScope:
    """Limits on a session's runs; the default limits nothing."""

    skills: tuple[str, ...] | None = None
    """Only these skills (still within the agent's own list); None: the agent's own list."""
    omit_sections: frozenset[str] = frozenset()
    """Prompt sections left out by name (e.g. `memory`)."""
    denied_tools: Mapping[str, str] = field(default_factory=dict)
    """Tools neither offered nor callable, each with the reason a call is refused."""

    def to_json(self) -> dict[str, Any]:
        return {
            "skills": list(self.skills) if self.skills is not None else None,
            "omitSections": sorted(self.omit_sections),
            "deniedTools": dict(self.denied_tools),
        }

    @classmethod
    def from_json(cls, data: Any) -> RunScope:
        """The scope stored in a session entry; anything unreadable counts as no restriction on that part."""
        if not isinstance(data, Mapping):
            return cls()
        skills = data.get("skills")
        omit = data.get("omitSections")
        denied = data.get("deniedTools")
        return cls(
            skills=tuple(str(s) for s in skills) if isinstance(skills, list) else None,
            omit_sections=frozenset(str(s) for s in omit) if isinstance(omit, list) else frozenset(),
            denied_tools={str(k): str(v) for k, v in denied.items()} if isinstance(denied, Mapping) else {},
        )


def scope_of(extra: Mapping[str, Any] | None) -> RunScope:
    """The scope recorded in a session entry's `extra` (no restriction when there is none)."""
    return RunScope.from_json(extra.get(SCOPE_KEY)) if extra else RunScope()
