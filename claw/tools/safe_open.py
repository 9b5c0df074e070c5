"""Open and replace workspace files through the descriptors `path_walk.locate` vouched for.

`read`, `write` and `edit` all come here, so the three share one rule for what they may touch:
a regular file reached inside the allowed roots, opened or replaced relative to its directory's
descriptor with `O_NOFOLLOW`. Its type and link count are judged on the open descriptor
(`fstat`), not on a name that could change after the look.

Hard links are the one escape no path can show: `ln ../outside/secret hard` makes a name inside
the workspace for a file outside it. A regular workspace file with more than one link is
therefore refused unless `tools.files.allowHardlinks` is set. The extra read-only roots (skills)
are exempt: they hold what the operator installed, and package installers such as uv hard-link
files from their cache.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from claw.errors import ClawError, NotFoundError
from claw.tools.host_code import guard_located
from claw.tools.path_walk import MAX_RETRIES, Located, locate
from claw.tools.workspace_paths import checked_path

HARDLINK_SETTING = "agents.defaults.tools.files.allowHardlinks"
# O_NONBLOCK: opening a FIFO that was swapped in after the look must not wait for a writer.
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(slots=True)
class OpenFile:
    """A regular file open for reading, and where it is (for replacing it, as `edit` does).

    Owns both descriptors; use it as a context manager.
    """

    fd: int
    stat: os.stat_result
    where: Located

    def read_bytes(self) -> bytes:
        chunks = []
        while chunk := os.read(self.fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self.where.close()

    def __enter__(self) -> OpenFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def open_regular(
    workspace: Path,
    path: str,
    *,
    tool: str,
    allow_hardlinks: bool,
    extra_roots: tuple[Path, ...] = (),
) -> OpenFile:
    """Open the regular file `path` leads to, inside `workspace` (or an extra root), for reading.

    Raises `NotFoundError` when it does not exist and `ClawError` (prefixed with `tool`) for a
    directory, anything else that is not a regular file, or a refused hard link.
    """
    shown = checked_path(path)
    for _ in range(MAX_RETRIES):
        where = locate(workspace, path, extra_roots=extra_roots)
        try:
            _require_regular(where.stat, tool, shown)
            try:
                fd = os.open(where.name, _READ_FLAGS, dir_fd=where.dir_fd)
            except OSError as exc:
                if exc.errno not in (errno.ENOENT, errno.ELOOP):
                    raise
                where.close()  # removed, or made a symlink, since the look: look again
                continue
            opened = OpenFile(fd, os.fstat(fd), where)
        except BaseException:
            where.close()
            raise
        if stat.S_ISREG(opened.stat.st_mode):
            try:
                refuse_hardlink(opened.stat, where, tool, shown, allow_hardlinks)
            except ClawError:
                opened.close()
                raise
            return opened
        opened.close()  # it was swapped for something else since the look: judge it again
    raise ClawError(f"{tool}: {shown} kept changing while it was opened; try again")


def write_file(
    workspace: Path, path: str, data: bytes, *, tool: str, allow_hardlinks: bool, approved: Path | None = None
) -> None:
    """Create or replace the file `path` leads to inside `workspace` with `data`, atomically.

    Missing parent directories are made inside the workspace. A symlink at the final name is
    followed to its target, as far as it stays inside; an existing file keeps its permissions.
    Host code (a workspace hook's files, `claw.tools.host_code`) is refused unless it is `approved`.
    """
    shown = checked_path(path)
    with locate(workspace, path, create_parents=True) as where:
        guard_located(workspace, where, approved, tool)
        st = where.stat
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise ClawError(f"{tool}: {shown} is a directory; give a file path")
        if st is not None and stat.S_ISREG(st.st_mode):
            refuse_hardlink(st, where, tool, shown, allow_hardlinks)
        replace_at(where, data, mode=None if st is None else stat.S_IMODE(st.st_mode))


def replace_at(where: Located, data: bytes, *, mode: int | None) -> None:
    """Replace `where.name` in `where.dir_fd` with `data`: the recipe of `claw.store.atomic`, by descriptor.

    A temp file is created next to it (`O_EXCL|O_NOFOLLOW`, so never through a symlink),
    given `mode`, written and fsynced, then renamed over the name, which replaces whatever the
    name is by then (a symlink or a second hard link included) and never writes through it.
    With `mode=None` the file gets what `open()` would give a new one.
    """
    temp = f".{where.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(temp, _TEMP_FLAGS, 0o600 if mode is not None else 0o666, dir_fd=where.dir_fd)
    try:
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, where.name, src_dir_fd=where.dir_fd, dst_dir_fd=where.dir_fd)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=where.dir_fd)
        except FileNotFoundError:
            pass
        raise
    os.fsync(where.dir_fd)


def refuse_hardlink(st: os.stat_result, where: Located, tool: str, shown: str, allowed: bool) -> None:
    """Raise for a regular workspace file with more than one hard link, unless the setting allows it."""
    if st.st_nlink > 1 and where.in_workspace and not allowed:
        raise ClawError(
            f"{tool}: {shown} has {st.st_nlink} hard links, so it may be a file from outside the workspace; "
            f"set {HARDLINK_SETTING} = true to allow hard-linked files"
        )


def _require_regular(st: os.stat_result | None, tool: str, shown: str) -> None:
    if st is None:
        raise NotFoundError(f"no such file: {shown}")
    if stat.S_ISDIR(st.st_mode):
        raise ClawError(f"{tool}: {shown} is a directory; give a file path")
    if not stat.S_ISREG(st.st_mode):
        raise ClawError(f"{tool}: {shown} is not a regular file")
