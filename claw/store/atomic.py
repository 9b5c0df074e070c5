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
import tempfile
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

_TEMP_SUFFIX = ".tmp"


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace `path` with `data` atomically; the file ends up with exactly `mode`."""
    path = Path(path)
    directory = path.parent
    # mkstemp creates the file 0600 whatever the umask; fchmod sets the final mode
    # before a single byte is written, so the content is never more exposed than asked.
    fd, tmp_name = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=_TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            if hasattr(os, "fchmod"):
                os.fchmod(handle.fileno(), mode)
            else:  # pragma: no cover - Windows only knows the read-only bit
                os.chmod(tmp_name, mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(directory)


def atomic_write_text(path: Path, text: str, mode: int = 0o600) -> None:
    """Replace `path` with `text` (UTF-8) atomically."""
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def atomic_write_json(path: Path, value: Any, mode: int = 0o600) -> None:
    """Replace `path` with `value` as indented JSON atomically.

    The value is serialised before any file is created, so an unserialisable value
    raises without touching the directory.
    """
    text = json.dumps(value, ensure_ascii=False, indent=2) + "\n"
    atomic_write_text(path, text, mode)


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


def remove_stale_temps(path: Path, older_than: float = 300.0) -> int:
    """Delete temp files a crashed `atomic_write_*` of `path` left behind; returns how many.

    Only temps older than `older_than` seconds are removed, so a write in progress in
    another process keeps its file.
    """
    path = Path(path)
    cutoff = time.time() - older_than
    removed = 0
    for candidate in path.parent.glob(f".{path.name}.*{_TEMP_SUFFIX}"):
        try:
            if candidate.stat().st_mtime < cutoff:
                candidate.unlink()
                removed += 1
        except FileNotFoundError:
            continue
    if removed:
        log.warning("removed %d stale temp file(s) next to %s", removed, path)
    return removed
