"""How other commands find a running gateway: `gateway.json` (pid, URL, start time) and a state lock.

The file is written (0600, atomically) once the server listens and removed when it
stops; a file left by a process that no longer exists is stale and ignored. The lock
(`gateway.lock`, flock) makes a second `claw gateway run` on the same state refuse.
Light to import: the `claw agent` fast path reads this before anything else.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from typing import IO, Any

from claw.errors import UsageError
from claw.paths import Paths, ensure_private_dir


@dataclass(frozen=True, slots=True)
class RuntimeInfo:
    """What a running gateway tells other processes about itself."""

    pid: int
    url: str
    bind: str
    port: int
    started_at: float
    version: str

    def to_wire(self) -> dict[str, Any]:
        return {
            "pid": self.pid,
            "url": self.url,
            "bind": self.bind,
            "port": self.port,
            "startedAt": self.started_at,
            "version": self.version,
        }

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> RuntimeInfo:
        return cls(
            int(raw["pid"]),
            str(raw["url"]),
            str(raw["bind"]),
            int(raw["port"]),
            float(raw["startedAt"]),
            str(raw["version"]),
        )


def write_runtime(paths: Paths, info: RuntimeInfo) -> None:
    from claw.store.atomic import atomic_write_text

    ensure_private_dir(paths.gateway_runtime_file.parent)
    atomic_write_text(paths.gateway_runtime_file, json.dumps(info.to_wire(), indent=2) + "\n", 0o600)


def read_runtime(paths: Paths) -> RuntimeInfo | None:
    """The running gateway's info; None when there is no file, it is unreadable, or its process is gone."""
    try:
        info = RuntimeInfo.from_wire(json.loads(paths.gateway_runtime_file.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return info if pid_alive(info.pid) else None


def remove_runtime(paths: Paths, pid: int) -> None:
    """Remove the file if it is still ours (a newer gateway may have replaced it)."""
    try:
        current = json.loads(paths.gateway_runtime_file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(current, dict) and current.get("pid") == pid:
        with contextlib.suppress(FileNotFoundError):
            paths.gateway_runtime_file.unlink()


def pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def local_url(bind: str, port: int) -> str:
    """The URL a client on this machine uses: wildcard binds are reached through loopback."""
    host = bind.strip("[]")
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"ws://[{host}]:{port}/" if ":" in host else f"ws://{host}:{port}/"


class StateLock:
    """The background services' owner: an exclusive, non-blocking flock on `gateway.lock`.

    Only one process on a state dir runs the scheduler, the channels and the outbox: two pollers of
    one Telegram bot conflict, and two schedulers race for each due job. `claw gateway run` must hold
    this lock to start; a `claw chat` on an in-process gateway runs the services only if it gets it,
    and otherwise runs without them (its status bar says so). The holder writes who it is into the
    file, so that whoever is refused can be told which process to quit.
    """

    def __init__(self, paths: Paths) -> None:
        self._path = paths.gateway_lock_file
        self._file: IO[str] | None = None

    def try_acquire(self, role: str) -> bool:
        """Take the lock for `role` (e.g. "claw gateway run"); False when another process holds it."""
        import fcntl

        ensure_private_dir(self._path.parent)
        fd = os.open(self._path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        handle = os.fdopen(fd, "r+", encoding="utf-8")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        handle.truncate(0)
        handle.write(json.dumps({"pid": os.getpid(), "role": role}) + "\n")
        handle.flush()
        self._file = handle
        return True

    def acquire(self, role: str = "claw gateway run") -> None:
        """Take the lock or raise a UsageError that names the process holding it."""
        if not self.try_acquire(role):
            raise UsageError(
                f"{self.holder()} already runs the gateway's background services on this state "
                f"({self._path.parent}); quit it first (see `claw gateway status`)"
            )

    def holder(self) -> str:
        """Who holds the lock, as a phrase: "claw chat (pid 123)", or "another claw process"."""
        try:
            raw = json.loads(self._path.read_text(encoding="utf-8"))
            return f"{raw['role']} (pid {int(raw['pid'])})"
        except (OSError, ValueError, KeyError, TypeError):
            return "another claw process"

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing the descriptor drops the flock
            self._file = None
