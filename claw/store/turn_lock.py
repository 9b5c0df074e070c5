"""`TurnLock`: who is in the middle of a turn on a transcript, across processes.

A turn holds a shared `flock` on `.<session id>.jsonl.lock` beside the transcript from before its first
entry until after its last. Closing a turn that a dead process left open takes the same lock
exclusively and without waiting: it succeeds only when no process, this one included, is inside a turn
of that transcript, so a live turn, however slow, is never taken for a dead one. The kernel drops a
process's locks when it dies (`kill -9` included), which is what makes a dead turn tell from a live one.

Shared, because turns of one session in two processes (a console and a CLI command, each with its own
in-process gateway) may run at the same time, as they always could. The exclusive hold lasts only as
long as the check and the one line of the repair, so a turn that finds it taken waits for it
(`acquire_shared(wait=True)`, from a worker thread).

`flock` locks belong to an open file description, so each `TurnLock` opens the file itself, and two
in one process exclude each other as two in different processes do. The lock file is created empty,
0600, and left in place while the session exists (see `claw.store.file_lock` for why).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from claw.paths import ensure_private_dir
from claw.store.file_lock import LOCK_SUFFIX

_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


class TurnLock:
    """The turn lock of the transcript at `transcript_path`; one holder (shared or exclusive) at a time."""

    def __init__(self, transcript_path: Path) -> None:
        # `claw.store.file_lock.lock_path`, in string operations: a turn builds one, and pathlib takes
        # several times as long as the lock itself.
        head, name = os.path.split(transcript_path)
        self.path = os.path.join(head, f".{name}{LOCK_SUFFIX}")
        self._fd: int | None = None

    def acquire_shared(self, *, wait: bool) -> bool:
        """Hold the lock as a turn does; False when an exclusive holder (a repair) has it and not `wait`."""
        return self._acquire(fcntl.LOCK_SH, wait=wait)

    def try_exclusive(self) -> bool:
        """Hold the lock alone, now or never: False while a turn (or another repair) holds it."""
        return self._acquire(fcntl.LOCK_EX, wait=False)

    def release(self) -> None:
        """Give the lock up (closing the descriptor releases it)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> TurnLock:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()

    def _acquire(self, mode: int, *, wait: bool) -> bool:
        if self._fd is not None:
            raise RuntimeError(f"{self.path} is already held by this TurnLock")
        fd = self._open()
        try:
            fcntl.flock(fd, mode if wait else mode | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        return True

    def _open(self) -> int:
        try:
            return os.open(self.path, _FLAGS, 0o600)
        except FileNotFoundError:  # the sessions folder does not exist yet
            ensure_private_dir(Path(self.path).parent)
            return os.open(self.path, _FLAGS, 0o600)
