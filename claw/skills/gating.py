"""Is a skill usable for this message? `ineligibility` answers with None or a one-line reason.

Policy comes first (disabled in config, not in `allowBundled`, not in the agent's
list, denied for the channel or sender); then a skill fresh from `claw skills new`
whose description is still the scaffold's placeholder (the model picks skills by
their description, so that one would only mislead it); then, unless the skill says
`always`, its requirements (os, binaries on PATH, env vars, config values) — every
missing requirement is named, in one line.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from claw.settings.skills import SkillAccess, SkillEntry, SkillsSettings
from claw.skills.skill import Skill

PLACEHOLDER_DESCRIPTION = "TODO: one line saying what {name} does and when to use it."
"""What `claw skills new` writes as the description when given none; a skill still carrying it is not used."""


def current_platform() -> str:
    """`linux`, `darwin` or `win32`, as skills' `os` lists spell it."""
    for name in ("linux", "darwin", "win32"):
        if sys.platform.startswith(name):
            return name
    return sys.platform


@dataclass(frozen=True, slots=True)
class GateContext:
    """Everything gating looks at besides the skill itself."""

    agent_id: str = "main"
    agent_skills: tuple[str, ...] | None = None
    """The agent's `skills` list: None allows every skill, `()` none."""
    settings: SkillsSettings = field(default_factory=SkillsSettings)
    channel: str = "cli"
    sender_id: str = "local"
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    platform: str = field(default_factory=current_platform)
    config_data: Callable[[], dict[str, Any]] = dict
    """The whole configuration as a camelCase dict, for `requires.config` (computed only when needed)."""
    _bins: dict[str, bool] = field(default_factory=dict, compare=False)

    def on_path(self, binary: str) -> bool:
        found = self._bins.get(binary)
        if found is None:
            found = self._bins[binary] = shutil.which(binary, path=self.environ.get("PATH", "")) is not None
        return found

    def entry(self, skill: Skill) -> SkillEntry:
        return self.settings.entries.get(skill.config_key) or SkillEntry()


def ineligibility(skill: Skill, ctx: GateContext) -> str | None:
    """None if `skill` may be used under `ctx`, else why not (one line)."""
    return _policy(skill, ctx) or _unwritten(skill) or (None if skill.always else _requirements(skill, ctx))


def _unwritten(skill: Skill) -> str | None:
    if skill.description == PLACEHOLDER_DESCRIPTION.format(name=skill.name):
        return f"description is still the placeholder: edit {skill.file}"
    return None


def _policy(skill: Skill, ctx: GateContext) -> str | None:
    entry = ctx.entry(skill)
    if not entry.enabled:
        return f"disabled in config (skills.entries.{skill.config_key}.enabled = false)"
    allow_bundled = ctx.settings.allow_bundled
    if skill.source == "bundled" and allow_bundled is not None and skill.name not in allow_bundled:
        return "bundled skill not in skills.allowBundled"
    if ctx.agent_skills is not None and skill.name not in ctx.agent_skills:
        listed = "is empty" if not ctx.agent_skills else "does not name it"
        return f"not enabled for agent {ctx.agent_id} (its skills list {listed})"
    rules = [
        (ctx.settings.channels.get("*"), 'channel "*"', 'skills.channels."*"'),
        (ctx.settings.channels.get(ctx.channel), f"channel {ctx.channel}", f"skills.channels.{ctx.channel}"),
    ]
    sender = f"{ctx.channel}:{ctx.sender_id}"
    rules.append((ctx.settings.senders.get(sender), f"sender {sender}", f'skills.senders."{sender}"'))
    for access, who, key in rules:
        reason = _access(skill.name, access, who, key)
        if reason:
            return reason
    return None


def _access(name: str, access: SkillAccess | None, who: str, key: str) -> str | None:
    if access is None:
        return None
    if name in access.deny or "*" in access.deny:
        return f"denied for {who} ({key}.deny)"
    if access.allow is not None and name not in access.allow and "*" not in access.allow:
        return f"not allowed for {who} ({key}.allow)"
    return None


def _requirements(skill: Skill, ctx: GateContext) -> str | None:
    missing: list[str] = []
    if skill.os and ctx.platform not in skill.os:
        missing.append(f"needs os {' or '.join(skill.os)} (this is {ctx.platform})")
    req = skill.requires
    absent = [b for b in req.bins if not ctx.on_path(b)]
    if absent:
        missing.append(f"missing binaries on PATH: {', '.join(absent)}")
    if req.any_bins and not any(ctx.on_path(b) for b in req.any_bins):
        missing.append(f"needs one of these binaries on PATH: {', '.join(req.any_bins)}")
    unset = [name for name in req.env if not _env_provided(skill, name, ctx)]
    if unset:
        key = skill.config_key
        missing.append(f"env not set: {', '.join(unset)} (export it, or set skills.entries.{key}.env)")
    if req.config:
        unset_config = [path for path in req.config if not _config_truthy(skill, path, ctx)]
        if unset_config:
            missing.append(f"config not set: {', '.join(unset_config)}")
    return "; ".join(missing) or None


def _env_provided(skill: Skill, name: str, ctx: GateContext) -> bool:
    if ctx.environ.get(name):
        return True
    entry = ctx.entry(skill)
    if entry.env.get(name):
        return True
    return bool(entry.api_key) and skill.primary_env == name


def _config_truthy(skill: Skill, path: str, ctx: GateContext) -> bool:
    """`path` is looked up in the skill's own `skills.entries.<key>.config`, then in the whole config."""
    return bool(_lookup(ctx.entry(skill).config, path) or _lookup(ctx.config_data(), path))


def _lookup(data: Any, path: str) -> Any:
    for part in path.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data
