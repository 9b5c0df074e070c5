"""A cross-process lock for a file that is rewritten whole: read, change, write, with nobody in between.

An atomic replace makes each write whole, but two writers that each read the file, change their copy
and write it back still lose one another's change (the last rename wins). Every read-modify-write of
such a file runs under `locked(path)`: an exclusive `flock` on `.<name>.lock` beside it (hidden, so
workspace listings and the memory index pass over it), so writers in other processes (a `claw chat`,
a `claw gateway run`, a CLI command) and other threads take turns.

The lock file is created empty, 0600, and left in place: removing it would let a writer that had
already opened the old one hold a lock nobody else sees. Readers that only read need no lock, since
the replace is atomic. `flock` locks belong to the open file description, so the lock is also
exclusive between two opens in one process, and the kernel drops it when a holder dies.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_SUFFIX = ".lock"


def lock_path(path: Path) -> Path:
    """The lock file that guards `path`."""
    return path.with_name(f".{path.name}{LOCK_SUFFIX}")


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock of `path` (which need not exist yet) for the `with` block."""
    fd = os.open(lock_path(Path(path)), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock
