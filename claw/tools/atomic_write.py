"""Replace a file's contents so that a crash leaves the old file or the new one, never a torn one.

The new bytes go to a uniquely named temp file in the same directory, are
fsynced, and take the target's name with `os.replace`; then the directory is
fsynced so the rename itself survives a crash. All of it happens relative to
one open directory descriptor, so the file lands in the directory that was
opened even if a path component is swapped for a symlink meanwhile, and the
rename replaces a name — it never writes through a symlink at that name.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path


def atomic_write_bytes(path: Path, data: bytes, *, mode: int | None = None) -> None:
    """Write `data` to `path` atomically.

    The file gets `mode` if given, else the existing file's permission bits, else
    0666 filtered by the process umask (what `open()` would have produced).
    """
    dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        perms = mode if mode is not None else _existing_mode(path.name, dir_fd)
        temp_name = f".{path.name}.{secrets.token_hex(6)}.tmp"
        fd = os.open(
            temp_name,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
            0o666 if perms is None else perms,
            dir_fd=dir_fd,
        )
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
