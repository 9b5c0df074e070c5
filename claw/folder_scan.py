"""Folder-per-item discovery, shared by skills (SKILL.md) and hooks (HOOK.md).

Each location holds one folder per item with a manifest file in it. A folder without the
manifest is not an item; one that resolves (through a symlink on the folder or the manifest)
outside its location is reported as escaping and never loaded. Parsed manifests are cached by
(path, mtime, size, source), so scanning again before each turn or event costs a few stats.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Candidate:
    """A folder with a manifest in one location, in name order."""

    name: str
    directory: Path
    manifest: os.stat_result
    escapes: bool
    """The folder or its manifest is a symlink that leads outside the location."""


def candidates(location: Path, manifest: str) -> list[Candidate]:
    """The item folders of `location` (none if it is missing, not a folder, or unreadable)."""
    try:
        entries = sorted(os.scandir(location), key=lambda e: e.name)
    except OSError:
        return []
    real_location: str | None = None
    found: list[Candidate] = []
    for entry in entries:
        if entry.name.startswith(".") or not _is_dir(entry):
            continue
        file = os.path.join(entry.path, manifest)
        try:
            st = os.lstat(file)
            file_is_link = stat.S_ISLNK(st.st_mode)
            if file_is_link:
                st = os.stat(file)
        except OSError:
            continue  # no manifest: not an item
        escapes = False
        if entry.is_symlink() or file_is_link:
            real_location = real_location or os.path.realpath(location)
            escapes = not _inside(os.path.realpath(file), real_location)
        found.append(Candidate(entry.name, Path(entry.path), st, escapes))
    return found


class ManifestCache(Generic[T]):
    """Parsed manifests (or the reason they could not be used), by path, mtime, size and source."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._items: dict[tuple[str, int, int, str], T | str] = {}

    def get(self, found: Candidate, source: str, parse: Callable[[], T | str]) -> T | str:
        key = (str(found.directory), found.manifest.st_mtime_ns, found.manifest.st_size, source)
        hit = self._items.get(key)
        if hit is None:
            hit = parse()
            if len(self._items) >= self._limit:
                self._items.clear()
            self._items[key] = hit
        return hit

    def clear(self) -> None:
        self._items.clear()


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
