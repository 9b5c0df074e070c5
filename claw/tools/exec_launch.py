"""How one `exec` command is started and stopped: under bwrap (sandboxed) or under the reaper (not).

Either way the launcher leads a new session and its process group, and nothing the command starts
outlives it. They differ in how an early stop reaches the tree: bwrap dies of a SIGTERM to its group,
and its PID namespace with it; the reaper is told alone (SIGTERM for a timeout, SIGINT for an abort)
and ends the tree itself, children that left the group with `setsid` included.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from claw.tools.sandbox import SandboxSpec, bwrap_argv

REAPER_SCRIPT = Path(__file__).with_name("process_reaper.py")


@dataclass(frozen=True, slots=True)
class Launch:
    """The argv to run, and the signals that stop it early."""

    argv: tuple[str, ...]
    sandboxed: bool
    timeout_signal: signal.Signals = signal.SIGTERM
    abort_signal: signal.Signals = signal.SIGTERM
    signal_group: bool = True
    """Send the stop signal to the launcher's whole process group (else to the launcher alone)."""
    start: str = ""
    """What the launcher's process applies to itself before its exec (`process_reaper.apply_spec`); the reaper
    takes its command's as an argument instead."""


def shell_argv(command: str) -> list[str]:
    """`/bin/sh -c COMMAND`: a plain shell, never a login shell (no profile, no rc files)."""
    return ["/bin/sh", "-c", command]


def sandboxed(bwrap: str, spec: SandboxSpec, command: str, *, start: str = "") -> Launch:
    """bwrap, started with `start` (the umask, limits and cgroup of claw/tools/exec_limits.py) applied: the
    sandbox inherits them."""
    return Launch(tuple(bwrap_argv(bwrap, spec, shell_argv(command))), sandboxed=True, start=start)


def reaped(
    command: str, env: Mapping[str, str], *, timeout_grace: float, abort_grace: float, start: str = ""
) -> Launch:
    """Under the reaper (claw/tools/process_reaper.py), run by this Python without site or user paths; the
    command starts with `start` applied (claw/tools/exec_limits.py).

    Python's start-up coerces a C locale by adding LC_CTYPE to its environment (PEP 538), which the
    command would inherit; the reaper is told to drop it unless `env`, the command's, has it."""
    unset = [] if "LC_CTYPE" in env else ["-u", "LC_CTYPE"]
    argv = [
        sys.executable,
        "-I",
        "-S",
        str(REAPER_SCRIPT),
        f"{timeout_grace:g}",
        f"{abort_grace:g}",
        str(os.getpid()),
        *unset,
        *(["-s", start] if start else []),
        "--",
        *shell_argv(command),
    ]
    return Launch(
        tuple(argv),
        sandboxed=False,
        timeout_signal=signal.SIGTERM,
        abort_signal=signal.SIGINT,
        signal_group=False,
    )
