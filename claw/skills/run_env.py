"""The variables a run's commands get from the config of the run's eligible skills.

OpenClaw sets `skills.entries.<k>.env` and `apiKey` (→ the skill's `primaryEnv`) in `process.env`
for the duration of a run, for names not already set, and restores them afterwards. The gateway
serves many runs at once in one process, so claw never touches `os.environ`: `SkillEnvSource`
builds the same variables for each run (`ToolContext.skill_env`), and `exec` adds them to its
command's environment for names that environment does not already set.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING

from claw.agent.sections import SectionRequest
from claw.settings.skills import SkillEntry, SkillsSettings
from claw.skills.catalog import discover_for
from claw.skills.gating import ineligibility
from claw.skills.section import run_gate_context
from claw.skills.skill import Skill

if TYPE_CHECKING:
    from claw.config import Config
    from claw.gateway.host import Configured


class SkillEnvSource:
    """`RunEnvSource` named "skills": what the skills eligible for this run are configured with."""

    name = "skills"

    def __init__(self, host: Configured) -> None:
        self._host = host

    async def env(self, request: SectionRequest) -> dict[str, str]:
        config = self._host.config
        if not any(e.enabled and (e.env or e.api_key) for e in config.skills.entries.values()):
            return {}  # the usual case: no skill is configured with variables, so nothing to discover or gate
        # Discovery and gating (stats, PATH lookups) go to a worker thread, as a new skills snapshot does.
        return await asyncio.to_thread(self._eligible_env, config, request)

    def _eligible_env(self, config: Config, request: SectionRequest) -> dict[str, str]:
        found = discover_for(self._host.paths, config, request.workspace)
        ctx = run_gate_context(config, request)  # the gating the skills prompt section uses for this run
        configured = [s for s in found.skills if skill_vars(s, ctx.entry(s))]
        return configured_env((s for s in configured if ineligibility(s, ctx) is None), ctx.settings)


def skill_vars(skill: Skill, entry: SkillEntry | None) -> list[tuple[str, str]]:
    """The (name, value) pairs `entry` gives `skill`: its `env`, then `apiKey` as the skill's primaryEnv.
    Empty values, names or values a process environment cannot hold, and names that would change how
    programs start (`HIJACKING_NAMES`, `LD_*`, `DYLD_*`) are left out."""
    if entry is None or not entry.enabled:
        return []
    pairs = list(entry.env.items())
    if entry.api_key and skill.primary_env:
        pairs.append((skill.primary_env, entry.api_key))
    return [(name, value) for name, value in pairs if value and _storable(name, value)]


def configured_env(skills: Iterable[Skill], settings: SkillsSettings) -> dict[str, str]:
    """The variables of `skills` (eligible ones, in the order skills are listed): for a name set more than
    once, the first skill (and within a skill, `env` before `apiKey`) wins."""
    merged: dict[str, str] = {}
    for skill in skills:
        for name, value in skill_vars(skill, settings.entries.get(skill.config_key)):
            merged.setdefault(name, value)
    return merged


# Names that change how programs start rather than what they know (the dynamic loader, shell start-up,
# interpreters' start-up hooks and module paths): never taken from skill config, as newer OpenClaw does.
HIJACKING_NAMES = frozenset(
    {
        "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "PS4", "IFS", "PATH",
        "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONINSPECT", "NODE_OPTIONS", "NODE_PATH",
        "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "GIT_SSH_COMMAND", "GIT_EXEC_PATH",
    }
)  # fmt: skip
HIJACKING_PREFIXES = ("LD_", "DYLD_")


def _storable(name: str, value: str) -> bool:
    upper = name.upper()
    if upper in HIJACKING_NAMES or upper.startswith(HIJACKING_PREFIXES):
        return False
    return bool(name) and "=" not in name and "\0" not in name and "\0" not in value
