"""`claw skills add|rm|new`: install a skill into $CLAW_HOME/skills, remove one, scaffold a new one.

`add` stages the skill in a temporary folder beside its destination, validates it
there, and only then renames it into place, so a failed or interrupted install
never leaves half a skill behind; `--force` swaps out an existing copy the same way.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from claw.errors import NotFoundError, UsageError
from claw.paths import ensure_private_dir
from claw.skills.archive import unpack
from claw.skills.audit import dropper_findings, scripts_in
from claw.skills.gating import PLACEHOLDER_DESCRIPTION
from claw.skills.parse import SkillParseError, parse_skill_file
from claw.skills.skill import SKILL_FILE, Skill

_NEW_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")


@dataclass(frozen=True, slots=True)
class Installed:
    """What `add_skill` did."""

    skill: Skill
    replaced: bool
    scripts: tuple[str, ...]
    findings: tuple[str, ...]


def add_skill(source: Path, skills_dir: Path, *, force: bool = False, trust: bool = False) -> Installed:
    """Install the skill in `source` (folder, .zip, .tar.gz) as `skills_dir/<name>`."""
    if not source.exists():
        raise NotFoundError(f"no such file or folder: {source}")
    ensure_private_dir(skills_dir)
    staging = Path(tempfile.mkdtemp(prefix=".add-", dir=skills_dir))
    try:
        unpack(source, staging / "unpacked")
        root = _skill_root(staging / "unpacked", source)
        try:  # only the frontmatter's share of SKILL.md is read to parse it
            skill = parse_skill_file(root / SKILL_FILE, skills_dir / "?", "managed")
        except SkillParseError as exc:
            raise UsageError(f"invalid skill in {source}: {exc}") from None
        # The audit reads all of it: a valid skill, within the unpacked size limit.
        text = (root / SKILL_FILE).read_text(encoding="utf-8", errors="replace")
        findings = tuple(dropper_findings(text))
        if findings and not trust:
            raise UsageError(
                f"refusing to install {skill.name}: {SKILL_FILE} {findings[0]}; "
                "read the skill, and pass --trust to install it anyway"
            )
        target = skills_dir / skill.name
        replaced = target.exists() or target.is_symlink()
        if replaced and not force:
            raise UsageError(f"skill {skill.name!r} is already installed at {target}; pass --force to replace it")
        os.chmod(root, 0o755)
        if replaced:
            os.rename(target, staging / "previous")
        os.rename(root, target)
        installed = dataclasses.replace(skill, directory=target)
        return Installed(installed, replaced, tuple(scripts_in(target)), findings)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _skill_root(unpacked: Path, source: Path) -> Path:
    """The folder holding SKILL.md: the top of the archive, or its one top-level folder."""
    if (unpacked / SKILL_FILE).is_file():
        return unpacked
    entries = [p for p in unpacked.iterdir() if not p.name.startswith((".", "__MACOSX"))]
    only = entries[0] if len(entries) == 1 else None
    if only is not None and only.is_dir() and not only.is_symlink() and (only / SKILL_FILE).is_file():
        return only
    raise UsageError(f"invalid skill in {source}: no {SKILL_FILE} at its top (or in its single top-level folder)")


def remove_skill(name: str, skills_dir: Path) -> Path:
    """Delete the installed skill `name`; it is moved aside first, so it disappears at once."""
    target = skills_dir / name
    if "/" in name or name.startswith(".") or not (target.is_dir() or target.is_symlink()):
        raise NotFoundError(f"no installed skill named {name!r} in {skills_dir} (see `claw skills ls --all`)")
    if target.is_symlink():
        target.unlink()
        return target
    trash = Path(tempfile.mkdtemp(prefix=".rm-", dir=skills_dir))
    os.rename(target, trash / name)
    shutil.rmtree(trash, ignore_errors=True)
    return target


def scaffold(name: str, parent: Path, description: str | None = None) -> Path:
    """Create `parent/<name>/SKILL.md` from a template; refuses names that are not lowercase-hyphenated."""
    if not _NEW_NAME.match(name) or len(name) > 64:
        raise UsageError(f"invalid skill name {name!r}: use lowercase letters, digits and single hyphens (max 64)")
    folder = parent / name
    if folder.exists():
        raise UsageError(f"{folder} already exists")
    folder.mkdir(parents=True)
    summary = (description or PLACEHOLDER_DESCRIPTION.format(name=name)).replace('"', "'")
    (folder / SKILL_FILE).write_text(TEMPLATE.format(name=name, description=summary), encoding="utf-8")
    return folder / SKILL_FILE


TEMPLATE = """---
name: {name}
description: "{description}"
# metadata: {{"claw": {{"requires": {{"bins": ["some-tool"], "env": ["SOME_API_KEY"]}}}}}}
# user-invocable: true              # run it as /skill {name} or /{name}
# disable-model-invocation: false   # true keeps it out of the model's list
---

# {name}

## When to use
Say in a sentence or two which requests this skill is for, and which it is not for.

## Steps
1. What to look at first (files in the workspace, `memory_search`, the user's message).
2. What to do, with the exact tool calls or commands (`exec`, `read`, `write`, `edit`).
3. How to check the result, and what to tell the user.

## Notes
Anything easy to get wrong. Put long reference material in files beside this one
(e.g. `reference.md`) and say here when to read them.
"""
