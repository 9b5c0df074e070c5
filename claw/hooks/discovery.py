"""Find hooks across their locations and resolve name clashes, like skills.

Precedence, highest first: the agent's `<workspace>/hooks/`, `$CLAW_HOME/hooks/` (managed),
then claw's bundled `hooks/`. The first hook of a name wins; later copies are shadowed.
A folder without HOOK.md is not a hook; one whose HOOK.md cannot be used, or that resolves
(through a symlink) outside its location, is reported as invalid and never stops the others.
Parsed manifests are cached by (path, mtime, size), so discovery before each event costs a few stats.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from claw.folder_scan import Candidate, ManifestCache, candidates
from claw.hooks.hook import MANIFEST, SOURCES, Hook, HookSource, InvalidHook, ShadowedHook
from claw.hooks.manifest import HookManifestError, parse_hook
from claw.paths import Paths, bundled_dir

MAX_HOOKS_PER_ROOT = 200
_cache: ManifestCache[Hook] = ManifestCache(limit=1024)


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
    out: list[Hook | InvalidHook] = []
    for found in candidates(root.path, MANIFEST):
        if len(out) >= MAX_HOOKS_PER_ROOT:
            reason = f"skipped: over {MAX_HOOKS_PER_ROOT} hooks here"
            out.append(InvalidHook(found.name, found.directory, root.source, reason))
        elif found.escapes:
            reason = "resolves outside its hooks folder (symlink)"
            out.append(InvalidHook(found.name, found.directory, root.source, reason))
        else:
            out.append(_load(found, root.source))
    return out


def _load(found: Candidate, source: HookSource) -> Hook | InvalidHook:
    parsed = _cache.get(found, source, lambda: _parse(found.directory, source))
    return InvalidHook(found.name, found.directory, source, parsed) if isinstance(parsed, str) else parsed


def _parse(directory: Path, source: HookSource) -> Hook | str:
    try:
        return parse_hook(directory, source)
    except HookManifestError as exc:
        return str(exc)
