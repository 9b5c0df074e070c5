"""Find hooks across their locations and resolve name clashes, like skills.

Precedence, highest first: the agent's `<workspace>/hooks/`, `$CLAW_HOME/hooks/` (managed),
then claw's bundled `hooks/`. The first hook of a name wins; later copies are shadowed.
A folder without HOOK.md is not a hook; one whose HOOK.md cannot be used, or that resolves
(through a symlink) outside its location, is reported as invalid and never stops the others.
Parsed manifests are cached by (path, mtime, size), so discovery before each event costs a few stats.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from claw.hooks.hook import MANIFEST, SOURCES, Hook, HookSource, InvalidHook, ShadowedHook
from claw.hooks.manifest import HookManifestError, parse_hook
from claw.paths import Paths, bundled_dir

MAX_HOOKS_PER_ROOT = 200
_CACHE_LIMIT = 1024
_cache: dict[tuple[str, int, int, str], Hook | str] = {}


@dataclass(frozen=True, slots=True)
class HookRoot:
    """One location hooks are loaded from."""

    source: HookSource
    path: Path


@dataclass(frozen=True, slots=True)
class Discovery:
    """The winning hooks (in run order: bundled, managed, workspace; by name within each), the
    shadowed copies and the invalid folders."""

    hooks: tuple[Hook, ...]
    shadowed: tuple[ShadowedHook, ...]
    invalid: tuple[InvalidHook, ...]

    def get(self, name: str) -> Hook | None:
        return next((h for h in self.hooks if h.name == name), None)


def hook_roots(paths: Paths, workspace: Path) -> list[HookRoot]:
    """Highest precedence first."""
    return [
        HookRoot("workspace", workspace / "hooks"),
        HookRoot("managed", paths.hooks_dir),
        HookRoot("bundled", bundled_dir("hooks")),
    ]


def discover(roots: list[HookRoot]) -> Discovery:
    winners: dict[str, Hook] = {}
    shadowed: list[ShadowedHook] = []
    invalid: list[InvalidHook] = []
    for root in roots:
        for found in _scan(root):
            if isinstance(found, InvalidHook):
                invalid.append(found)
            elif found.name in winners:
                shadowed.append(ShadowedHook(found, winners[found.name]))
            else:
                winners[found.name] = found
    # Run order: the user's own hooks last, so they see (and may change) what bundled ones did.
    order = {source: rank for rank, source in enumerate(reversed(SOURCES))}
    hooks = tuple(sorted(winners.values(), key=lambda h: (order[h.source], h.name)))
    return Discovery(hooks, tuple(shadowed), tuple(invalid))


def _scan(root: HookRoot) -> list[Hook | InvalidHook]:
    try:
        entries = sorted(os.scandir(root.path), key=lambda e: e.name)
    except OSError:  # missing, not a directory, or unreadable: no hooks here
        return []
    real_root = os.path.realpath(root.path)
    out: list[Hook | InvalidHook] = []
    for entry in entries:
        if entry.name.startswith(".") or not _is_dir(entry):
            continue
        file = os.path.join(entry.path, MANIFEST)
        try:
            st = os.stat(file)
        except OSError:
            continue  # a folder without HOOK.md is not a hook
        directory = Path(entry.path)
        if len(out) >= MAX_HOOKS_PER_ROOT:
            out.append(
                InvalidHook(entry.name, directory, root.source, f"skipped: over {MAX_HOOKS_PER_ROOT} hooks here")
            )
            continue
        if not _inside(os.path.realpath(entry.path), real_root):
            out.append(InvalidHook(entry.name, directory, root.source, "resolves outside its hooks folder (symlink)"))
            continue
        out.append(_load(directory, root.source, st))
    return out


def _load(directory: Path, source: HookSource, st: os.stat_result) -> Hook | InvalidHook:
    key = (str(directory), st.st_mtime_ns, st.st_size, source)
    cached = _cache.get(key)
    if cached is None:
        try:
            cached = parse_hook(directory, source)
        except HookManifestError as exc:
            cached = str(exc)
        if len(_cache) >= _CACHE_LIMIT:
            _cache.clear()
        _cache[key] = cached
    if isinstance(cached, str):
        return InvalidHook(directory.name, directory, source, cached)
    return cached


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _inside(path: str, root: str) -> bool:
    return path.startswith(root.rstrip(os.sep) + os.sep)
