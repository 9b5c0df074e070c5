"""Find skills across their locations, highest precedence first, and resolve name clashes.

Each location (a `SkillRoot`) holds one folder per skill, each with a SKILL.md.
A folder whose SKILL.md is missing is not a skill; one whose SKILL.md cannot be
parsed, is too big, or resolves (through a symlink) outside its root is reported as
invalid with a reason and never stops the others from loading. Parsed files are
cached by (path, mtime, size), so rediscovery on every turn costs a few stats.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from claw.folder_scan import Candidate, ManifestCache, candidates
from claw.safe_read import RefusedFile, read_agent_bytes
from claw.skills.parse import SkillParseError, parse_skill_text
from claw.skills.skill import SKILL_FILE, InvalidSkill, ShadowedSkill, Skill, SkillSource

_cache: ManifestCache[Skill] = ManifestCache(limit=4096)


@dataclass(frozen=True, slots=True)
class SkillRoot:
    """One location skills are loaded from."""

    source: SkillSource
    path: Path


@dataclass(frozen=True, slots=True)
class Discovery:
    """What discovery found: the winning skills (by name), the shadowed, the invalid, and a stamp
    that changes whenever any SKILL.md is added, removed or modified."""

    skills: tuple[Skill, ...]
    shadowed: tuple[ShadowedSkill, ...]
    invalid: tuple[InvalidSkill, ...]
    stamp: str

    def get(self, name: str) -> Skill | None:
        return next((s for s in self.skills if s.name == name), None)


def discover(roots: Iterable[SkillRoot], *, max_per_root: int = 1000, max_file_bytes: int = 256_000) -> Discovery:
    """Scan `roots` in order; the first skill of a name wins, later ones are shadowed."""
    digest = hashlib.blake2b(digest_size=16)
    winners: dict[str, Skill] = {}
    shadowed: list[ShadowedSkill] = []
    invalid: list[InvalidSkill] = []
    for root in roots:
        digest.update(f"\x01{root.source}\x00{root.path}\n".encode())
        for found in _scan(root, max_per_root, max_file_bytes, digest):
            if isinstance(found, InvalidSkill):
                invalid.append(found)
            elif found.name in winners:
                shadowed.append(ShadowedSkill(found, winners[found.name]))
            else:
                winners[found.name] = found
    skills = tuple(sorted(winners.values(), key=lambda s: s.name))
    return Discovery(skills, tuple(shadowed), tuple(invalid), digest.hexdigest())


def _scan(root: SkillRoot, limit: int, max_bytes: int, digest: hashlib.blake2b) -> list[Skill | InvalidSkill]:
    out: list[Skill | InvalidSkill] = []
    for found in candidates(root.path, SKILL_FILE):
        digest.update(f"{found.name}\x00{found.manifest.st_mtime_ns}\x00{found.manifest.st_size}\n".encode())
        if len(out) >= limit:
            reason = f"skipped: more than {limit} skills in {root.path} (skills.limits.maxSkillsPerRoot)"
            out.append(InvalidSkill(found.name, found.directory, root.source, reason))
        elif found.escapes:
            reason = "resolves outside its skills folder (symlink)"
            out.append(InvalidSkill(found.name, found.directory, root.source, reason))
        else:
            out.append(_load(found, root.source, max_bytes))
    return out


def _load(found: Candidate, source: SkillSource, max_bytes: int) -> Skill | InvalidSkill:
    parsed = _cache.get(found, source, lambda: _parse(found.directory, source, found.manifest.st_size, max_bytes))
    return InvalidSkill(found.name, found.directory, source, parsed) if isinstance(parsed, str) else parsed


def _parse(directory: Path, source: SkillSource, size: int, max_bytes: int) -> Skill | str:
    if size > max_bytes:
        return f"{SKILL_FILE} is {size:,} bytes, over the {max_bytes:,}-byte limit"
    # Read by the rule for agent-writable files (a workspace skill is one): no link out of its location,
    # no FIFO. Installed and bundled skills may be hard-linked by package installers, as the read tool allows.
    try:
        raw = read_agent_bytes(
            directory.parent,
            f"{directory.name}/{SKILL_FILE}",
            max_bytes=max_bytes,
            allow_hardlinks=source != "workspace",
        )
    except RefusedFile as exc:
        return f"skipped {SKILL_FILE}: {exc.message}"
    if raw is None:
        return f"cannot read {SKILL_FILE}: it is gone"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return f"{SKILL_FILE} is not UTF-8 text"
    try:
        return parse_skill_text(text, directory, source)
    except SkillParseError as exc:
        return str(exc)


def clear_cache() -> None:
    """Forget parsed files (for benchmarks that measure a cold start)."""
    _cache.clear()
