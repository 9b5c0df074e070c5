"""`[skills]` in config.toml: extra skill folders, limits (`[skills.limits]`), per-skill entries
(`[skills.entries.<name>]`) and per-channel and per-sender allow/deny lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field

from claw.settings_base import Section


class SkillLimits(Section):
    """Caps on what skill discovery loads and what the prompt's `<available_skills>` list may hold."""

    max_skills_in_prompt: int = Field(default=150, ge=0)
    """At most this many skills are listed in the prompt."""
    max_skills_prompt_chars: int = Field(default=30_000, ge=0)
    """The list's size in characters; over it, descriptions are shortened, then dropped, then skills."""
    max_skills_per_root: int = Field(default=1000, ge=1)
    """Skills loaded from one location; the rest are reported as skipped."""
    max_skill_file_bytes: int = Field(default=256_000, ge=1024)
    """A bigger SKILL.md is skipped as invalid."""


class SkillEntry(Section):
    """Per-skill settings under `[skills.entries.<name>]`."""

    enabled: bool = True
    """False removes the skill everywhere."""
    env: dict[str, str] = {}
    """Values that satisfy the skill's `requires.env`."""
    api_key: str | None = None
    """Satisfies the env var the skill names as its `primaryEnv`."""
    config: dict[str, Any] = {}
    """The skill's own settings; its `requires.config` paths are looked up here first."""


class SkillAccess(Section):
    """Which skills a channel or sender may use: `allow` (unset = all, `[]` = none) minus `deny`; `*` matches any."""

    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] = ()


class SkillsSettings(Section):
    """`[skills]`: extra skill folders, limits, per-skill entries and channel/sender allow/deny lists."""

    extra_dirs: tuple[Path, ...] = ()
    """More skill folders, lowest precedence; relative paths are relative to config.toml's folder."""
    allow_bundled: tuple[str, ...] | None = None
    """When set, only these bundled skills are usable (other locations are unaffected)."""
    limits: SkillLimits = SkillLimits()
    entries: dict[str, SkillEntry] = {}
    channels: dict[str, SkillAccess] = {}
    """Per channel name (`"*"` for every channel)."""
    senders: dict[str, SkillAccess] = {}
    """Per sender, keyed `"<channel>:<senderId>"`."""
