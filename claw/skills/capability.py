"""Skills as a capability: the prompt section, `/skill` and `/<name>`, the `skills.*` RPC methods, read
access to skill folders outside the workspace, and the variables skills are configured with for `exec`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from claw.gateway.capability import BaseCapability, Command
from claw.paths import bundled_dir
from claw.skills.catalog import extra_dirs
from claw.skills.invoke import skill_by_name, skill_command
from claw.skills.run_env import SkillEnvSource
from claw.skills.section import SkillsSection

if TYPE_CHECKING:
    from claw.agent.sections import PromptSectionSource, RunEnvSource
    from claw.gateway.capability import Method
    from claw.gateway.commands import Fallback
    from claw.skills.host import SkillsHost


class SkillsCapability(BaseCapability):
    name = "skills"
    method_namespaces = ("skills.",)

    def __init__(self, host: SkillsHost) -> None:
        self.host = host

    def read_roots(self) -> Sequence[Path]:
        paths, config = self.host.paths, self.host.config
        return (paths.skills_dir, bundled_dir("skills"), *extra_dirs(paths, config))

    def sections(self) -> Sequence[PromptSectionSource]:
        return (SkillsSection(self.host),)

    def env_sources(self) -> Sequence[RunEnvSource]:
        return (SkillEnvSource(self.host),)

    def commands(self) -> Sequence[Command]:
        return (Command("skill", "run a skill: /skill <name> [input]; /skill alone lists them", skill_command),)

    def command_fallbacks(self) -> Sequence[Fallback]:
        return (skill_by_name,)

    def methods(self) -> Mapping[str, Method]:
        from claw.skills.methods import skill_methods  # on first use: see claw.gateway.method_table

        return skill_methods(self.host)
