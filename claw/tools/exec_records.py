"""What `exec` has running, written down, so that the next gateway can end what a crashed one left behind.

Each running command has one small JSON file in the records directory (0700, under the state dir; files
0600): the pid and start time of its launcher (the reaper or bwrap, which leads its own session), the
gateway that started it (pid and start time), and a random marker that is also in the command's
environment (`CLAW_EXEC_RUN`). The file goes when the command ends.

A gateway killed with SIGKILL normally takes its commands with it (the reaper's and bwrap's parent-death
signal). If the launcher died too, its tree lives on; `end_leftovers` — run when a gateway sets up its
tools — finds it by the session (a pid stays reserved while a session of that number exists, so a
session whose leader is gone cannot be someone else's) and by the marker (which `setsid` does not drop),
and kills it. A pid is only ever killed after it is checked to be the recorded process or to carry the
marker: a record whose gateway still runs (same pid, same start time) is left alone.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from claw.tools.process_reaper import all_pids, proc_stat, start_time

log = logging.getLogger(__name__)

MARKER_NAME = "CLAW_EXEC_RUN"
"""The environment variable that marks every process of one `exec` command."""
KILL_DEADLINE_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class ExecRecord:
    """One running command, as written in its file."""

    pid: int
    start_time: int
    owner_pid: int
    owner_start_time: int
    marker: str


class ExecRecords:
    """The records directory of one state dir."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @staticmethod
    def new_marker() -> str:
        return secrets.token_hex(16)

    def add(self, pid: int, marker: str) -> Path | None:
        """Write the record of the launcher `pid` (already started, with `marker` in its environment)."""
        started, owner_started = start_time(pid), start_time(os.getpid())
        if started is None or owner_started is None:
            return None  # already gone (or no procfs): nothing to find later
        record = {
            "pid": pid,
            "startTime": started,
            "ownerPid": os.getpid(),
            "ownerStartTime": owner_started,
            "marker": marker,
        }
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = self.directory / f"{pid}.json"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as handle:
                json.dump(record, handle)
        except OSError as exc:  # a full disk must not stop the command; it only loses the crash clean-up
            log.warning("cannot record exec process %s in %s: %s", pid, self.directory, exc)
            return None
        return path

    def remove(self, path: Path | None) -> None:
        if path is not None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def end_leftovers(self) -> list[int]:
        """Kill what the commands of gateways that are no longer running left behind; the pids killed."""
        killed: list[int] = []
        for path in sorted(self.directory.glob("*.json")) if self.directory.is_dir() else []:
            record = _read(path)
            if record is not None and _alive_as(record.owner_pid, record.owner_start_time):
                continue  # a running gateway's command (a second process on the same state dir)
            if record is not None and (ended := _end(record)):
                log.warning("ended %d process(es) an exec command left running under a stopped gateway", len(ended))
                killed += ended
            self.remove(path)
        return killed


def end_run(pid: int, started: int, marker: str) -> list[int]:
    """Kill what is left of one command whose launcher `pid` (started at `started`) has ended: the members of
    its session and every process carrying `marker`; the pids killed.

    Run by the gateway after each unsandboxed command: the reaper ends the tree itself, but a command can
    kill its reaper (`kill -9 $PPID`), and then its `setsid`/`nohup`/`&` children are orphans of PID 1."""
    return _end(ExecRecord(pid, started, os.getpid(), 0, marker))


def _read(path: Path) -> ExecRecord | None:
    try:
        raw = json.loads(path.read_text())
        return ExecRecord(
            int(raw["pid"]), int(raw["startTime"]), int(raw["ownerPid"]), int(raw["ownerStartTime"]), str(raw["marker"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        log.warning("ignoring unreadable exec record %s", path)
        return None


def _alive_as(pid: int, started: int) -> bool:
    return start_time(pid) == started


def _end(record: ExecRecord) -> list[int]:
    """SIGKILL the record's tree until none of it is left (or the deadline passes)."""
    killed: set[int] = set()
    # A live process with the launcher's pid but another start time means the number was reused, which the
    # kernel does only once no session or group of that number is left: then the session is not ours.
    by_session = start_time(record.pid) in (None, record.start_time)
    deadline = time.monotonic() + KILL_DEADLINE_SECONDS
    while time.monotonic() < deadline:
        members = [pid for pid in all_pids() if pid != os.getpid() and _belongs(pid, record, by_session)]
        if not members:
            break
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
        time.sleep(0.02)
    return sorted(killed)


def _belongs(pid: int, record: ExecRecord, by_session: bool) -> bool:
    """The recorded launcher itself, a live member of its session, or a process carrying its marker."""
    fields = proc_stat(pid)
    if fields is None or fields[0] in (b"Z", b"X"):
        return False  # gone, or dead and waiting for its parent
    started = int(fields[19])
    if pid == record.pid:
        return started == record.start_time
    if by_session and int(fields[3]) == record.pid and started >= record.start_time:
        return True
    return _has_marker(pid, record.marker)


def _has_marker(pid: int, marker: str) -> bool:
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
    return f"{MARKER_NAME}={marker}".encode() in environ.split(b"\0")
