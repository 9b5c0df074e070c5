"""Which skills an agent has, where they come from, and whether each is usable right now.

`skill_roots` lists the four locations in precedence order; `build_report` runs
discovery and gating for one agent (and one channel/sender) and yields the rows
that `claw skills ls`, `skills.list` and the prompt section all use.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from claw.config import Config
from claw.paths import Paths, bundled_dir
from claw.skills.discovery import Discovery, SkillRoot, discover
from claw.skills.gating import GateContext, ineligibility
from claw.skills.skill import Skill


def extra_dirs(paths: Paths, config: Config) -> list[Path]:
    """`skills.extraDirs`, with `~` and `$VARS` expanded; relative paths are relative to config.toml's folder."""
    out = []
    for raw in config.skills.extra_dirs:
        path = Path(os.path.expandvars(str(raw))).expanduser()
        out.append(path if path.is_absolute() else paths.config_dir / path)
    return out


def skill_roots(paths: Paths, config: Config, workspace: Path) -> list[SkillRoot]:
    """Highest precedence first: the workspace's skills/, installed, bundled, then extraDirs."""
    roots = [
        SkillRoot("workspace", workspace / "skills"),
        SkillRoot("managed", paths.skills_dir),
        SkillRoot("bundled", bundled_dir("skills")),
    ]
    roots += [SkillRoot("extra", path) for path in extra_dirs(paths, config)]
    return roots


def gate_context(config: Config, agent_id: str, channel: str = "cli", sender_id: str = "local") -> GateContext:
    return GateContext(
        agent_id=agent_id,
        agent_skills=config.agent(agent_id).skills,
        settings=config.skills,
        channel=channel,
        sender_id=sender_id,
        config_data=lambda: config.file.model_dump(by_alias=True, mode="json"),
    )


@dataclass(frozen=True, slots=True)
class SkillStatus:
    """A discovered skill and, when it cannot be used, why."""

    skill: Skill
    reason: str | None

    @property
    def eligible(self) -> bool:
        return self.reason is None


@dataclass(frozen=True, slots=True)
class SkillReport:
    """Discovery plus gating for one agent and one channel/sender."""

    discovery: Discovery
    statuses: tuple[SkillStatus, ...]

    @property
    def eligible(self) -> list[Skill]:
        return [s.skill for s in self.statuses if s.eligible]

    def status(self, name: str) -> SkillStatus | None:
        return next((s for s in self.statuses if s.skill.name == name), None)

    def rows(self, *, include_all: bool = False) -> list[dict[str, Any]]:
        """The JSON rows of `claw skills ls`: eligible skills, plus with `include_all` the rest."""
        rows = [_row(s.skill, s.reason, "ok" if s.eligible else "ineligible") for s in self.statuses]
        if not include_all:
            return [r for r in rows if r["eligible"]]
        for shadow in self.discovery.shadowed:
            winner = shadow.winner
            rows.append(_row(shadow.skill, f"shadowed by the {winner.source} skill at {winner.file}", "shadowed"))
        for bad in self.discovery.invalid:
            rows.append(
                {
                    "name": bad.name,
                    "description": "",
                    "source": bad.source,
                    "eligible": False,
                    "reason": f"invalid {bad.path / 'SKILL.md'}: {bad.reason}",
                    "path": str(bad.path / "SKILL.md"),
                    "status": "invalid",
                }
            )
        return rows


def _row(skill: Skill, reason: str | None, status: str) -> dict[str, Any]:
    return {
        "name": skill.name,
        "description": skill.description,
        "source": skill.source,
        "eligible": reason is None,
        "reason": reason or "",
        "path": str(skill.file),
        "status": status,
    }


def discover_for(paths: Paths, config: Config, workspace: Path) -> Discovery:
    """Discovery over an agent's four locations, with the configured limits."""
    limits = config.skills.limits
    return discover(
        skill_roots(paths, config, workspace),
        max_per_root=limits.max_skills_per_root,
        max_file_bytes=limits.max_skill_file_bytes,
    )


def gate(found: Discovery, ctx: GateContext) -> SkillReport:
    return SkillReport(found, tuple(SkillStatus(s, ineligibility(s, ctx)) for s in found.skills))


def build_report(
    paths: Paths,
    config: Config,
    agent_id: str,
    workspace: Path,
    *,
    channel: str = "cli",
    sender_id: str = "local",
) -> SkillReport:
    """Discovery and gating for one agent, as seen from `channel` / `sender_id`."""
    return gate(discover_for(paths, config, workspace), gate_context(config, agent_id, channel, sender_id))
