"""A pids cgroup for one `exec` command, where the kernel's per-user process limit does not apply (root).

RLIMIT_NPROC is not enforced for root, so for a gateway running as root the process limit needs a cgroup:
a child of the gateway's own pids cgroup (cgroup v1's `pids` hierarchy, or v2 where the pids controller
is delegated to it), `pids.max` set, joined by the launcher before the command starts
(`process_reaper.apply_spec`). Where none can be made, root's commands have no process limit (docs/security.md
says so). When the command has ended, whatever is still in the cgroup is killed (it cannot have left it:
bwrap's sandbox shows no /sys/fs/cgroup) and the cgroup removed.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from pathlib import Path

from claw.tools.process_reaper import start_time

CGROUP_ROOT = Path("/sys/fs/cgroup")
BWRAP_TASKS = 2
"""Counted in a sandboxed command's cgroup besides the command's own: bwrap and its init. (The reaper of an
unsandboxed command stays out: only the command's process joins.)"""
END_DEADLINE_SECONDS = 5.0


PREFIX = "claw-exec-"


def cgroup_name() -> str:
    """`claw-exec-<gateway pid>-<its start time>-<random>`: whose it is, for `end_stale`."""
    return f"{PREFIX}{os.getpid()}-{start_time(os.getpid())}-{secrets.token_hex(8)}"


def end_stale() -> int:
    """End the cgroups of gateways that no longer run (killed before they could); how many."""
    parent = _own_pids_cgroup()
    ended = 0
    for path in parent.glob(f"{PREFIX}*") if parent is not None else []:
        owner, _, rest = path.name.removeprefix(PREFIX).partition("-")
        started = rest.partition("-")[0]
        if not (owner.isdigit() and started.isdigit()) or str(start_time(int(owner))) == started:
            continue  # not ours, or its gateway still runs
        PidsCgroup(path).end()
        ended += 1
    return ended


class PidsCgroup:
    """One command's cgroup: made by `make`, joined through `procs`, ended by `end`."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def make(cls, name: str, limit: int, *, sandboxed: bool) -> PidsCgroup | None:
        """A new cgroup `name` below this process's pids cgroup, at most `limit` tasks of the command's own;
        None where there is none that this process may make."""
        parent = _own_pids_cgroup()
        if parent is None:
            return None
        path = parent / name
        try:
            path.mkdir()
        except OSError:
            return None
        try:
            (path / "pids.max").write_text(str(limit + (BWRAP_TASKS if sandboxed else 0)))
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()
            return None
        return cls(path)

    @property
    def procs(self) -> str:
        return str(self.path / "cgroup.procs")

    def hit(self) -> bool:
        """Whether a fork failed because the cgroup was full."""
        try:
            events = (self.path / "pids.events").read_text().split()
        except OSError:
            return False
        return len(events) >= 2 and events[0] == "max" and events[1] != "0"

    def end(self) -> None:
        """Kill what is left in the cgroup, then remove it."""
        deadline = time.monotonic() + END_DEADLINE_SECONDS
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):
                self.path.rmdir()
                return
            for pid in self.members():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.02)

    def members(self) -> list[int]:
        try:
            return [int(line) for line in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []


def _own_pids_cgroup() -> Path | None:
    """This process's pids cgroup directory (v1 `pids` hierarchy, else v2 with pids delegated), or None."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if "pids" in controllers.split(","):
            found = CGROUP_ROOT / "pids" / path.lstrip("/")
            return found if (found / "pids.max").exists() or found == CGROUP_ROOT / "pids" else None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":
            found = CGROUP_ROOT / path.lstrip("/")
            with contextlib.suppress(OSError):
                if "pids" in (found / "cgroup.subtree_control").read_text().split():
                    return found
    return None
