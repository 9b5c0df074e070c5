"""`Skill`: one parsed SKILL.md, as every other part of claw sees it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

SkillSource = Literal["workspace", "managed", "bundled", "extra"]
SOURCES: tuple[SkillSource, ...] = ("workspace", "managed", "bundled", "extra")
"""Where a skill can come from, highest precedence first."""

SKILL_FILE = "SKILL.md"


@dataclass(frozen=True, slots=True)
class Requires:
    """What must be present for a skill to be usable (`metadata.requires`)."""

    bins: tuple[str, ...] = ()
    """Every one of these must be on PATH."""
    any_bins: tuple[str, ...] = ()
    """At least one of these must be on PATH."""
    env: tuple[str, ...] = ()
    """Environment variables that must be set (or provided by `skills.entries.<name>.env` / `apiKey`)."""
    config: tuple[str, ...] = ()
    """Dotted config paths that must hold a truthy value."""

    @property
    def empty(self) -> bool:
        return not (self.bins or self.any_bins or self.env or self.config)


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill found on disk: its frontmatter, where it lives and what it needs."""

    name: str
    description: str
    directory: Path
    """The skill's folder (absolute)."""
    source: SkillSource
    requires: Requires = field(default_factory=Requires)
    os: tuple[str, ...] = ()
    """Platforms it runs on (`linux`, `darwin`, `win32`); empty means any."""
    always: bool = False
    """Skip the requirement and os checks."""
    user_invocable: bool = True
    """Offered as `/skill <name>` and `/<name>`."""
    disable_model_invocation: bool = False
    """Kept out of the model's prompt (the slash command still works)."""
    primary_env: str | None = None
    """The env var that `skills.entries.<name>.apiKey` provides."""
    skill_key: str | None = None
    """The key of its `[skills.entries.…]` table, when it is not the name."""
    homepage: str | None = None

    @property
    def file(self) -> Path:
        """The SKILL.md itself: what the model reads."""
        return self.directory / SKILL_FILE

    @property
    def config_key(self) -> str:
        return self.skill_key or self.name

    @property
    def command_name(self) -> str:
        """The `/<name>` slash form: lowercase `[a-z0-9_]`, at most 32 characters."""
        cleaned = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in self.name.lower())
        return cleaned.strip("_")[:32]


@dataclass(frozen=True, slots=True)
class InvalidSkill:
    """A SKILL.md that could not be loaded, and why (the others load regardless)."""

    name: str
    """The folder's name (the frontmatter could not be trusted)."""
    path: Path
    source: SkillSource
    reason: str


@dataclass(frozen=True, slots=True)
class ShadowedSkill:
    """A skill hidden by a same-named skill from a location of higher precedence."""

    skill: Skill
    winner: Skill
