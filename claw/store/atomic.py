"""Atomic file replacement: a reader sees the old content or the new, never a mix or nothing.

The recipe (security-reliability.md, "Atomic replace"): write a temp file in the same
directory, created with the final mode; flush and fsync it; `os.replace` it over the
target; fsync the directory so the rename itself survives a power loss. If anything fails
before the rename, the temp file is removed and the target is untouched.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import stat
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_TEMP_SUFFIX = ".tmp"
_TEMP_NAME = re.compile(r"^\.(?P<target>.+)\.[^.]+\.tmp$")  # `.<target>.<random token>.tmp`
STALE_TEMP_SECONDS = 300.0
"""A temp file younger than this may belong to a write in progress in another process."""


def atomic_write_bytes(path: Path, data: bytes, mode: int | None = 0o600) -> None:
    """Replace `path` with `data` atomically.

    The file gets `mode`; with `mode=None` it keeps the existing file's permission bits
    (or gets what `open()` would give a new file), which is what editing a user's file wants.
    Everything happens relative to one open directory descriptor, so the file lands in the
    directory that was opened even if a path component is swapped for a symlink meanwhile,
    and the rename replaces a name: it never writes through a symlink at that name.
    """
    path = Path(path)
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        perms = mode if mode is not None else _existing_mode(path.name, dir_fd)
        temp_name = f".{path.name}.{secrets.token_hex(6)}{_TEMP_SUFFIX}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        # Created 0600 at most; fchmod sets the final mode before a byte is written.
        fd = os.open(temp_name, flags, 0o600 if perms is not None else 0o666, dir_fd=dir_fd)
        try:
            try:
                if perms is not None:
                    os.fchmod(fd, perms)
                _write_all(fd, data)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp_name, path.name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            try:
                os.unlink(temp_name, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            raise
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _existing_mode(name: str, dir_fd: int) -> int | None:
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return None if stat.S_ISLNK(st.st_mode) else st.st_mode & 0o7777


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def atomic_write_text(path: Path, text: str, mode: int | None = 0o600) -> None:
    """Replace `path` with `text` (UTF-8) atomically."""
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def atomic_write_json(path: Path, value: Any, mode: int = 0o600) -> None:
    """Replace `path` with `value` as JSON atomically; an object is written one member per line.

    One member per line reads and diffs well, and stays on the C encoder: `indent=` falls back
    to the pure-Python one, which holds the GIL for milliseconds on a large session index while
    the event loop waits. The value is serialised before any file is created, so an
    unserialisable value raises without touching the directory.
    """
    atomic_write_text(path, _json_lines(value), mode)


def _json_lines(value: Any) -> str:
    if not isinstance(value, dict) or not value:
        return json.dumps(value, ensure_ascii=False) + "\n"
    members = (
        f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(item, ensure_ascii=False)}" for key, item in value.items()
    )
    return "{\n" + ",\n".join(members) + "\n}\n"


def fsync_dir(directory: Path) -> None:
    """Make a rename or create in `directory` durable (a no-op where directories can't be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def temp_target(name: str) -> str | None:
    """The name of the file an `atomic_write_*` temp called `name` was for; None if `name` is not one."""
    match = _TEMP_NAME.match(name)
    return match["target"] if match else None


def remove_stale_temps(path: Path, older_than: float = STALE_TEMP_SECONDS) -> int:
    """Delete temp files a crashed `atomic_write_*` of `path` left behind; returns how many.

    Only temps older than `older_than` seconds are removed, so a write in progress in
    another process keeps its file.
    """
    path = Path(path)
    cutoff = time.time() - older_than
    removed = 0
    for candidate in path.parent.glob(f".{path.name}.*{_TEMP_SUFFIX}"):
        if temp_target(candidate.name) != path.name:
            continue
        try:
            if candidate.stat().st_mtime < cutoff:
                candidate.unlink()
                removed += 1
        except FileNotFoundError:
            continue
    if removed:
        log.warning("removed %d stale temp file(s) next to %s", removed, path)
    return removed
