"""Running one shell command in its own process group, with a deadline and a way to stop it.

The command runs as `/bin/sh -c COMMAND` (never a login shell) in a new session,
so its process group holds it and everything it starts. A timeout or a
cancellation (the run was aborted) ends the whole group: SIGTERM, a short
grace, then SIGKILL — so a child that ignores SIGTERM, or a grandchild that
outlives the shell, is gone too. Output (stdout and stderr merged) streams into
an `OutputCollector`, so memory stays bounded whatever the command prints.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from claw.tools.exec_output import OutputCollector

TIMEOUT_GRACE_SECONDS = 1.0
ABORT_GRACE_SECONDS = 0.25  # an abort must finish within a second, even if SIGTERM is ignored
DRAIN_SECONDS = 1.0  # after the kill, how long to wait for the pipe to close
READ_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class ProcessOutcome:
    """How a command ended and what it printed."""

    exit_code: int | None
    output: str
    timed_out: bool
    total_chars: int


async def run_shell(
    command: str, *, cwd: Path, env: dict[str, str], time_limit: float, max_chars: int
) -> ProcessOutcome:
    """Run `command` to completion or until `time_limit` seconds pass; cancellation kills it and re-raises."""
    collector = OutputCollector(max_chars)
    read_fd, write_fd = os.pipe()
    try:
        proc = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            command,
            cwd=cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            start_new_session=True,
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
    try:  # from here on the shell runs: an abort at any await below must kill its group
        transport, _ = await asyncio.get_running_loop().connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe
        )
        pump = asyncio.create_task(_pump(reader, collector))
        try:
            async with asyncio.timeout(time_limit):
                await proc.wait()
        except TimeoutError:
            timed_out = True
            await kill_group(proc, grace=TIMEOUT_GRACE_SECONDS)
        # A background child may still hold the pipe; take what it writes for a moment, then stop reading.
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(DRAIN_SECONDS):
                await asyncio.shield(pump)
    except asyncio.CancelledError:
        await kill_group(proc, grace=ABORT_GRACE_SECONDS)
        raise
    finally:
        if pump is not None:
            pump.cancel()
        if transport is not None:
            transport.close()
        else:
            pipe.close()
    return ProcessOutcome(proc.returncode, collector.text(), timed_out, collector.total_chars)


async def kill_group(proc: asyncio.subprocess.Process, *, grace: float) -> None:
    """SIGTERM the process group of `proc`, wait up to `grace` seconds for it to empty, then SIGKILL it."""
    pgid = proc.pid  # start_new_session=True: the shell leads its own group
    try:
        _signal_group(pgid, signal.SIGTERM)
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
