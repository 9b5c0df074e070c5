"""Which workspace files are memory: MEMORY.md (curated) and memory/**/*.md (daily notes).

The README that the workspace template puts in memory/ explains the folder; it is not a
memory and is left out. Files whose real location is outside the workspace (symlinks
leading out) are left out too: the index must never read what the file tools may not.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from claw.errors import ClawError
from claw.tools.workspace_paths import resolve_in_workspace

ROOT_FILES = ("MEMORY.md", "memory.md")
MEMORY_DIR = "memory"
SKIPPED = frozenset({"memory/readme.md"})


@dataclass(frozen=True, slots=True)
class MemoryFile:
    """A memory file: its workspace-relative POSIX path, where it really is, and its stat stamp."""

    rel: str
    path: str
    mtime_ns: int
    size: int


def is_memory_path(rel: str) -> bool:
    """True for MEMORY.md, memory.md and any memory/**/*.md (relative, already normalised)."""
    if rel in ROOT_FILES:
        return True
    parts = PurePosixPath(rel).parts
    return len(parts) >= 2 and parts[0] == MEMORY_DIR and rel.lower().endswith(".md") and ".." not in parts


def normalise(rel: str) -> str:
    """A user- or model-given path as the index names it: POSIX separators, no `./`."""
    cleaned = rel.strip().replace("\\", "/")
    while cleaned.startswith("./"):
        cleaned = cleaned[2:]
    return str(PurePosixPath(cleaned)) if cleaned else cleaned


def list_memory_files(workspace: Path) -> list[MemoryFile]:
    """Every memory file in `workspace`, sorted by path; case-insensitive twins counted once.

    Plain files under real directories need no further check (the walk never follows a
    symlinked directory); a symlink is resolved and kept only if it leads to a memory file.
    Strings, not `Path`s, on purpose: this runs before every search, over every note."""
    root = os.path.realpath(workspace)
    candidates = [file for name in ROOT_FILES if (file := _root_file(root, name))]
    folder = os.path.join(root, MEMORY_DIR)
    if os.path.isdir(folder) and not os.path.islink(folder):
        candidates += _walk(folder, MEMORY_DIR)
    found: dict[str, MemoryFile] = {}
    seen: set[tuple[int, int]] = set()
    for rel, path, check in candidates:
        if rel.lower() in SKIPPED:
            continue
        if check:  # a symlink: kept only if it resolves to a memory file inside the workspace
            try:
                real = resolve_in_workspace(Path(root), rel, must_exist=True)
            except ClawError:
                continue
            if not real.is_file() or not is_memory_path(real.relative_to(root).as_posix()):
                continue  # e.g. memory/x.md -> ../SOUL.md: memory_get would refuse it, so it is no memory
            path = str(real)
        try:
            st = os.stat(path)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) in seen:
            continue
        seen.add((st.st_dev, st.st_ino))
        found[rel] = MemoryFile(rel, path, st.st_mtime_ns, st.st_size)
    return [found[rel] for rel in sorted(found)]


def _root_file(root: str, name: str) -> tuple[str, str, bool] | None:
    """(name, path, is a symlink) for a regular file or a symlink called `name` in `root`, else None."""
    path = os.path.join(root, name)
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return name, path, True
    return (name, path, False) if stat.S_ISREG(mode) else None


def _walk(folder: str, rel: str) -> list[tuple[str, str, bool]]:
    """(relative path, path, is a symlink) of every `*.md` below `folder`, hidden names skipped."""
    out: list[tuple[str, str, bool]] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return out
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir(follow_symlinks=False):
            out += _walk(entry.path, f"{rel}/{entry.name}")
        elif entry.name.lower().endswith(".md") and (entry.is_file(follow_symlinks=False) or entry.is_symlink()):
            out.append((f"{rel}/{entry.name}", entry.path, entry.is_symlink()))
    return out
