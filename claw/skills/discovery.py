"""Find skills across their locations, highest precedence first, and resolve name clashes.

Each location (a `SkillRoot`) holds one folder per skill, each with a SKILL.md.
A folder whose SKILL.md is missing is not a skill; one whose SKILL.md cannot be
parsed, is too big, or resolves (through a symlink) outside its root is reported as
invalid with a reason and never stops the others from loading. Parsed files are
cached by (path, mtime, size), so rediscovery on every turn costs a few stats.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from claw.skills.parse import SkillParseError, parse_skill_text
from claw.skills.skill import SKILL_FILE, InvalidSkill, ShadowedSkill, Skill, SkillSource

_CACHE_LIMIT = 4096
_cache: dict[tuple[str, int, int, str], Skill | str] = {}


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


def _scan(root: SkillRoot, limit: int, max_bytes: int, digest: hashlib._Hash) -> list[Skill | InvalidSkill]:
    try:
        entries = sorted(os.scandir(root.path), key=lambda e: e.name)
    except OSError:  # missing, not a directory, or unreadable: no skills here
        digest.update(b"-\n")
        return []
    real_root: str | None = None
    out: list[Skill | InvalidSkill] = []
    for entry in entries:
        if entry.name.startswith(".") or not _is_dir(entry):
            continue
        file = os.path.join(entry.path, SKILL_FILE)
        try:
            st = os.lstat(file)
            file_is_link = stat.S_ISLNK(st.st_mode)
            if file_is_link:
                st = os.stat(file)
        except OSError:
            continue  # a folder without a SKILL.md is not a skill
        digest.update(f"{entry.name}\x00{st.st_mtime_ns}\x00{st.st_size}\n".encode())
        directory = Path(entry.path)
        if len(out) >= limit:
            reason = f"skipped: more than {limit} skills in {root.path} (skills.limits.maxSkillsPerRoot)"
            out.append(InvalidSkill(entry.name, directory, root.source, reason))
            continue
        if entry.is_symlink() or file_is_link:
            real_root = real_root or os.path.realpath(root.path)
            if not _inside(os.path.realpath(file), real_root):
                out.append(
                    InvalidSkill(entry.name, directory, root.source, "resolves outside its skills folder (symlink)")
                )
                continue
        out.append(_load(directory, root.source, st, max_bytes))
    return out


def _load(directory: Path, source: SkillSource, st: os.stat_result, max_bytes: int) -> Skill | InvalidSkill:
    key = (str(directory), st.st_mtime_ns, st.st_size, source)
    cached = _cache.get(key)
    if cached is None:
        cached = _parse(directory, source, st.st_size, max_bytes)
        if len(_cache) >= _CACHE_LIMIT:
            _cache.clear()
        _cache[key] = cached
    if isinstance(cached, str):
        return InvalidSkill(directory.name, directory, source, cached)
    return cached


def _parse(directory: Path, source: SkillSource, size: int, max_bytes: int) -> Skill | str:
    if size > max_bytes:
        return f"{SKILL_FILE} is {size:,} bytes, over the {max_bytes:,}-byte limit"
    try:
        text = (directory / SKILL_FILE).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        return f"{SKILL_FILE} is not UTF-8 text"
    except OSError as exc:
        return f"cannot read {SKILL_FILE}: {exc.strerror}"
    try:
        return parse_skill_text(text, directory, source)
    except SkillParseError as exc:
        return str(exc)


def clear_cache() -> None:
    """Forget parsed files (for benchmarks that measure a cold start)."""
    _cache.clear()


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
