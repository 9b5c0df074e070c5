"""Shared by the sandbox and orphan tests: needing bwrap, and finding a command's processes from the host.

Inside the sandbox a process's pid is its PID namespace's number, which means nothing out here; so the
tests give each process they follow a unique argument (`sleep 3000.123456`) and look for it in the
host's /proc.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest

from claw.tools.sandbox_probe import probe_sandbox
from tests.support.unavailable import unavailable
from tests.tools.helpers import process_gone

_counter = itertools.count(1)


def require_bwrap() -> None:
    """Skip (with the reason) where bwrap cannot sandbox; under CI (`CI` set) fail instead: CI must run them."""
    probe = probe_sandbox()
    if probe.usable:
        return
    unavailable(f"needs a usable bubblewrap: {probe.detail} ({probe.fix})")


@pytest.fixture
def bwrap() -> None:
    require_bwrap()


def unique_sleep() -> str:
    """A `sleep` duration no other process uses (3000 s and a fraction made of this test process's pid)."""
    return f"3000.{os.getpid()}{next(_counter):03d}"


def parent_of(pid: int) -> int | None:
    """The parent pid of `pid` (None once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[1].split()[1])


def running_with_arg(arg: str) -> list[int]:
    """The host pids of live (not zombie) processes that have `arg` as one of their arguments."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if arg.encode() in argv and not process_gone(int(entry)):
            found.append(int(entry))
    return found
