"""Running one command's launcher (claw/tools/exec_launch.py) to the end, with a deadline and a way to stop it.

The launcher leads a new session and process group, and ends the command's whole tree itself (bwrap's
PID namespace, or the reaper). A timeout or a cancellation (the run was aborted) sends it the launch's
stop signal, waits a short grace for the group to empty, then SIGKILLs the group — so a launcher that
hangs is gone too. An unsandboxed command can kill its reaper (`kill -9 $PPID`; a sandboxed one cannot
reach bwrap's), so once the reaper is gone, whatever is left in its session or carries the run's marker
(`CLAW_EXEC_RUN`, which `setsid` and `nohup` keep) is killed here too. While it runs, it is recorded
(claw/tools/exec_records.py) for the next gateway, in case this one is killed. Output (stdout and
stderr merged) streams into an `OutputCollector`, so memory stays bounded whatever the command prints.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import resource  # noqa: F401 - imported before any fork: apply_spec uses it in the child
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from claw.tools.exec_launch import Launch
from claw.tools.exec_output import OutputCollector
from claw.tools.exec_records import MARKER_NAME, ExecRecords, end_run
from claw.tools.process_reaper import apply_spec, start_time

TIMEOUT_GRACE_SECONDS = 1.0
ABORT_GRACE_SECONDS = 0.25  # an abort must finish within a second, even if SIGTERM is ignored
LAUNCHER_MARGIN_SECONDS = 0.5  # beyond the grace: the reaper's own clean-up, before the group's SIGKILL
DRAIN_SECONDS = 1.0  # after the kill, how long to wait for the pipe to close
READ_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    """How a command ended and what it printed."""

    exit_code: int | None
    output: str
    timed_out: bool
    total_chars: int


async def run_launch(
    launch: Launch,
    *,
    cwd: Path,
    env: dict[str, str],
    time_limit: float,
    max_chars: int,
    records: ExecRecords | None = None,
) -> ProcessOutcome:
    """Run `launch` to completion or until `time_limit` seconds pass; cancellation kills it and re-raises."""
    collector = OutputCollector(max_chars)
    marker = ExecRecords.new_marker()
    env = {**env, MARKER_NAME: marker}
    read_fd, write_fd = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            *launch.argv,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            start_new_session=True,
            # A few system calls between fork and exec (no import, no lock): the cost of a Python to do them
            # in would be three times bwrap's own start.
            preexec_fn=functools.partial(apply_spec, launch.start) if launch.start else None,
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    # We own the read end (rather than asyncio.subprocess.PIPE) so that we can close it
    # even while a background child that outlived the shell still holds the write end.
    reader = asyncio.StreamReader(limit=4 * READ_CHUNK)
    pipe = os.fdopen(read_fd, "rb", buffering=0)
    transport: asyncio.BaseTransport | None = None
    pump: asyncio.Task[None] | None = None
    timed_out = False
    started = start_time(proc.pid)
    record = records.add(proc.pid, marker) if records is not None else None
    try:  # from here on the launcher runs: an abort at any await below must kill its group
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        pump = asyncio.create_task(_pump(reader, collector))
        try:
            async with asyncio.timeout(time_limit):
                await proc.wait()
        except TimeoutError:
            timed_out = True
            await stop(proc, launch.timeout_signal, to_group=launch.signal_group, grace=TIMEOUT_GRACE_SECONDS)
        if not launch.sandboxed and started is not None:
            await asyncio.to_thread(end_run, proc.pid, started, marker)
        # A background child may still hold the pipe; take what it writes for a moment, then stop reading.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(DRAIN_SECONDS):
                await asyncio.shield(pump)
    except asyncio.CancelledError:
        await stop(proc, launch.abort_signal, to_group=launch.signal_group, grace=ABORT_GRACE_SECONDS)
        if not launch.sandboxed and started is not None:
            end_run(proc.pid, started, marker)  # in the loop: this task is being cancelled, a thread's await may be too
        raise
    finally:
        if records is not None and proc.returncode is not None:
            records.remove(record)
        if pump is not None:
            pump.cancel()
        if transport is not None:
            transport.close()
        else:
            pipe.close()
    return ProcessOutcome(proc.returncode, collector.text(), timed_out, collector.total_chars)


async def stop(proc: asyncio.subprocess.Process, sig: signal.Signals, *, to_group: bool, grace: float) -> None:
    """Send `sig` to the launcher's group (or to the launcher alone, which then ends the tree itself, given
    a margin beyond `grace`), wait for the group to empty, then SIGKILL the group."""
    pgid = proc.pid  # start_new_session=True: the launcher leads its own group
    try:
        if to_group:
            _signal_group(pgid, sig)
        else:
            with contextlib.suppress(ProcessLookupError):
                proc.send_signal(sig)
            grace += LAUNCHER_MARGIN_SECONDS
        deadline = time.monotonic() + grace
        while _group_alive(pgid) and time.monotonic() < deadline:  # noqa: ASYNC110 - polls the kernel
            await asyncio.sleep(0.02)
    finally:
        # Unconditional: members that were zombies or slow to go, and a second cancellation, all end here.
        _signal_group(pgid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(grace + 0.5):
                await proc.wait()


async def _pump(stream: asyncio.StreamReader, collector: OutputCollector) -> None:
    while chunk := await stream.read(READ_CHUNK):
        collector.feed(chunk)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    """Whether any process of the group still runs. Zombies do not count: they are dead, merely
    unreaped — and an orphan's reaper (PID 1 in a container) may never get round to it."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _has_running_member(pgid)


def _has_running_member(pgid: int) -> bool:
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True  # no procfs: trust killpg
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        # Fields after the parenthesised command name: state, ppid, pgrp, ...
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False
