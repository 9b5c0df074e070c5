"""Find a file under the workspace one directory descriptor at a time, never trusting a path twice.

Checking a path and then opening it by name is a race: in between, another process can swap a
checked directory for a symlink to somewhere outside, and the open follows it. So the walk never
opens a path. It starts from an open descriptor of a root and takes one component at a time with
`openat(..., O_NOFOLLOW)`. A symlink met on the way is read with `readlink` and its target walked
the same way, so it is followed only while it stays inside an allowed root; `..` goes back to the
descriptor the walk came from, and above a root only by matching an allowed root again. What comes
out is a descriptor of the directory holding the final name, and that name, which was not a
symlink when it was looked at: the caller opens or replaces it relative to the descriptor, again
with `O_NOFOLLOW`, so whatever is swapped in later cannot redirect it.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from claw.errors import ClawError, NotFoundError, PathEscapeError
from claw.tools.workspace_paths import checked_path

MAX_SYMLINKS = 40
"""Symlinks followed in one lookup before it counts as a loop (Linux's own limit)."""
MAX_RETRIES = 100
"""Times one lookup starts a component again because it changed between two looks at it."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(slots=True)
class Located:
    """Where a path led: an open directory, the final name in it, and what that name was when looked at.

    Owns `dir_fd`; use it as a context manager (or call `close`). `name` is `.` when the path
    ends on a directory itself (`sub/..`, the workspace). `stat` is the name's `lstat` (never a
    symlink) or None when nothing has that name yet.
    """

    dir_fd: int
    name: str
    real: Path
    stat: os.stat_result | None
    in_workspace: bool

    def close(self) -> None:
        if self.dir_fd >= 0:
            os.close(self.dir_fd)
            self.dir_fd = -1

    def __enter__(self) -> Located:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def locate(
    workspace: Path,
    path: str,
    *,
    extra_roots: tuple[Path, ...] = (),
    create_parents: bool = False,
) -> Located:
    """Walk `path` (relative to `workspace` unless absolute) to its final name, inside the allowed roots.

    `extra_roots` widen the confinement, for reads only. With `create_parents`, missing
    directories on the way are made (inside the workspace, with `mkdirat`). Raises
    `PathEscapeError` for anything that leads out, `NotFoundError` for a missing directory on
    the way, and `ClawError` for a symlink loop.
    """
    shown = checked_path(path)
    roots = [_Root.of(workspace), *(_Root.of(extra) for extra in extra_roots)]
    return _Walk(roots, shown, create_parents).run(path)


@dataclass(frozen=True, slots=True)
class _Root:
    real: str
    prefixes: tuple[tuple[str, ...], ...]
    """The root's components as configured and as resolved: an absolute path may use either."""

    @classmethod
    def of(cls, root: Path) -> _Root:
        real = os.path.realpath(root)  # the roots themselves are configuration, so trusted as named
        given = os.path.abspath(root)
        return cls(real, tuple(dict.fromkeys((tuple(_split(real)), tuple(_split(given))))))


class _Walk:
    """One lookup: a stack of open directories below a root and the components still to take."""

    def __init__(self, roots: list[_Root], shown: str, create: bool) -> None:
        self.roots = roots
        self.shown = shown
        self.create = create
        self.root = roots[0]
        self.fds: list[int] = []  # fds[0] is the root, fds[i] the directory names[i - 1]
        self.names: list[str] = []
        self.pending: deque[str] = deque()
        self.links = 0
        self.retries = 0

    def run(self, path: str) -> Located:
        try:
            if os.path.isabs(path):
                self._enter(_split(path))
            else:
                self._open_root(self.roots[0], _split(path))
            while self.pending:
                part = self.pending.popleft()
                if part == "..":
                    self._up()
                elif self.pending:
                    self._descend(part)
                elif (found := self._final(part)) is not None:
                    return found
            return self._result(".", os.fstat(self.fds[-1]))
        finally:
            self._close_all()

    def _enter(self, parts: list[str]) -> None:
        """Go on from absolute `parts`, which must start with an allowed root.

        A path that names a root only through some other symlink (an alias of the workspace) is
        matched by its `realpath`. That is only a hint of which root to start from: the rest is
        walked from the root's descriptor like any other path, so a race can change the hint but
        not lead the walk out.
        """
        for candidate in _as_given_then_resolved(parts):
            for root in self.roots:
                for prefix in root.prefixes:
                    if tuple(candidate[: len(prefix)]) == prefix:
                        self._open_root(root, candidate[len(prefix) :])
                        return
        raise PathEscapeError(self.shown)

    def _open_root(self, root: _Root, parts: list[str]) -> None:
        self._close_all()
        try:
            fd = os.open(root.real, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            if not (self.create and root is self.roots[0]):
                raise NotFoundError(f"no such file: {self.shown}") from None
            os.makedirs(root.real, exist_ok=True)  # a new agent's first write, as before
            fd = os.open(root.real, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        self.root, self.fds, self.names = root, [fd], []
        self.pending = deque(parts)

    def _up(self) -> None:
        if len(self.fds) > 1:
            os.close(self.fds.pop())
            self.names.pop()
            return
        self._enter([*_split(os.path.dirname(self.root.real)), *self.pending])

    def _descend(self, part: str) -> None:
        """Open directory `part` of the current one; follow it if it is a symlink."""
        try:
            child = os.open(part, _DIR_FLAGS, dir_fd=self.fds[-1])
        except FileNotFoundError:
            if not self.create:
                raise NotFoundError(f"no such file: {self.shown}") from None
            made = self._make(part)
            if made is None:
                return
            child = made
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            self._not_a_directory(part)
            return
        self.fds.append(child)
        self.names.append(part)

    def _make(self, part: str) -> int | None:
        """Create directory `part` here and open it; None when it changed meanwhile and is pending again."""
        try:
            os.mkdir(part, 0o777, dir_fd=self.fds[-1])
        except FileExistsError:
            pass  # made meanwhile by someone else; opened like any other below
        try:
            return os.open(part, _DIR_FLAGS, dir_fd=self.fds[-1])
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):
                raise
            self._again(part)
            return None

    def _not_a_directory(self, part: str) -> None:
        """`part` would not open as a directory: a symlink to follow, a file, or it just changed."""
        try:
            mode = os.stat(part, dir_fd=self.fds[-1], follow_symlinks=False).st_mode
        except FileNotFoundError:
            self._again(part)
            return
        if stat.S_ISLNK(mode):
            self._follow(part)
        elif stat.S_ISDIR(mode):
            self._again(part)
        elif self.create:
            raise ClawError(f"cannot create {self.shown}: {part} is a file, not a directory")
        else:
            raise NotFoundError(f"no such file: {self.shown}")

    def _final(self, part: str) -> Located | None:
        """The result for last component `part`, or None when it was a symlink whose target is now pending."""
        try:
            st = os.stat(part, dir_fd=self.fds[-1], follow_symlinks=False)
        except FileNotFoundError:
            return self._result(part, None)
        if stat.S_ISLNK(st.st_mode):
            self._follow(part)
            return None
        return self._result(part, st)

    def _follow(self, part: str) -> None:
        self.links += 1
        if self.links > MAX_SYMLINKS:
            raise ClawError(f"too many levels of symbolic links: {self.shown}")
        try:
            target = os.readlink(part, dir_fd=self.fds[-1])
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.EINVAL):  # gone, or no longer a symlink
                raise
            self._again(part)
            return
        if os.path.isabs(target):
            self._enter([*_split(target), *self.pending])
        else:
            self.pending.extendleft(reversed(_split(target)))

    def _again(self, part: str) -> None:
        self.retries += 1
        if self.retries > MAX_RETRIES:
            raise ClawError(f"{self.shown} kept changing while it was opened; try again")
        self.pending.appendleft(part)

    def _result(self, name: str, st: os.stat_result | None) -> Located:
        real = Path(self.root.real, *self.names, *([] if name == "." else [name]))
        workspace = Path(self.roots[0].real)
        return Located(self.fds.pop(), name, real, st, real == workspace or workspace in real.parents)

    def _close_all(self) -> None:
        while self.fds:
            os.close(self.fds.pop())


def _as_given_then_resolved(parts: list[str]) -> Iterator[list[str]]:
    yield parts
    yield _split(os.path.realpath(os.sep + os.sep.join(parts)))  # only when the parts as given match no root


def _split(path: str) -> list[str]:
    return [part for part in path.split(os.sep) if part not in ("", ".")]
