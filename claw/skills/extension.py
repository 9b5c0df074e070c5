"""Plugs skills into the gateway: the prompt section, `/skill` and `/<name>`, RPC methods, read
access to skill folders outside the workspace, and the variables skills are configured with for `exec`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.gateway import commands
from claw.paths import bundled_dir
from claw.skills import methods as _methods  # noqa: F401 - registers skills.list / skills.info / skills.check
from claw.skills.catalog import extra_dirs
from claw.skills.invoke import skill_by_name, skill_command
from claw.skills.run_env import SkillEnvSource
from claw.skills.section import SkillsSection

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway


def install(gateway: Gateway) -> None:
    for root in (gateway.paths.skills_dir, bundled_dir("skills"), *extra_dirs(gateway.paths, gateway.config)):
        if root not in gateway.extra_read_roots:
            gateway.extra_read_roots.append(root)
    gateway.runner.sections.append(SkillsSection(gateway))
    gateway.runner.env_sources.append(SkillEnvSource(gateway))
    commands.register("skill", "run a skill: /skill <name> [input]; /skill alone lists them", skill_command)
    if skill_by_name not in commands.FALLBACKS:
        commands.FALLBACKS.append(skill_by_name)
