"""What one `exec` command may use: processes, memory, file size and CPU time, and the umask it starts with.

The limits are `tools.exec.max*` (claw/config.py `ExecSettings`); 0 turns one off. They are set in the
launcher, before the command starts (`process_reaper.apply_spec`), so the command and all it starts
inherit them, sandboxed or not:

- memory: RLIMIT_DATA per process — heap and private writable mappings; address space reserved but not
  written (what V8, the JVM and Go reserve up front) does not count, so those runtimes still start;
- file size: RLIMIT_FSIZE, the largest file a process may write;
- CPU time: RLIMIT_CPU per process, soft (SIGXCPU, which a program may catch), then SIGKILL a second later;
- processes: RLIMIT_NPROC counts every process (thread) of the user, so the limit is the user's current
  count plus the setting: a fork bomb ends there. The kernel does not apply it to root; for root a pids
  cgroup does (claw/tools/exec_cgroup.py) where one can be made, else there is no process limit.

A limit that was hit is named in the result. File size and CPU time are exact (the kernel's SIGXFSZ and
SIGXCPU, or the shell's exit code 128+n for a child they killed); so is the process limit under a cgroup
(its event count). Otherwise a process that hits the limit on memory or processes only sees a call fail,
so the message it prints (`Cannot allocate memory`, `Resource temporarily unavailable` …) is the sign.
"""

from __future__ import annotations

import os
import resource
import signal
from dataclasses import dataclass

from claw.tools.process_reaper import all_pids, proc_stat

MB = 1024 * 1024
CPU_KILL_AFTER_SECONDS = 1
_MEMORY_SIGNS = (
    "Cannot allocate memory",
    "memory exhausted",  # coreutils
    "MemoryError",
    "std::bad_alloc",
    "out of memory",
    "Out of memory",
)
_PROCESS_SIGNS = ("Resource temporarily unavailable", "Cannot fork", "fork: retry", "can't fork")
_FILE_SIGNS = ("File too large", "File size limit exceeded")
_CPU_SIGNS = ("CPU time limit exceeded",)


@dataclass(frozen=True, slots=True)
class Limits:
    """One command's limits; 0 is none."""

    processes: int = 0
    memory_mb: int = 0
    file_size_mb: int = 0
    cpu_seconds: int = 0


def launch_spec(limits: Limits, *, umask: int, cgroup_procs: str | None = None) -> str:
    """The spec `process_reaper.apply_spec` applies: the umask, the cgroup to join and the rlimits, each
    rlimit never above what this process has itself (a lower limit is kept)."""
    items = [f"umask={umask:o}"]
    if cgroup_procs is not None:
        items.append(f"cgroup={cgroup_procs}")
    if limits.processes and cgroup_procs is None and os.geteuid() != 0:
        items.append(_rlimit("RLIMIT_NPROC", user_tasks() + limits.processes))
    if limits.memory_mb:
        items.append(_rlimit("RLIMIT_DATA", limits.memory_mb * MB))
    if limits.file_size_mb:
        items.append(_rlimit("RLIMIT_FSIZE", limits.file_size_mb * MB))
    if limits.cpu_seconds:
        items.append(_rlimit("RLIMIT_CPU", limits.cpu_seconds, limits.cpu_seconds + CPU_KILL_AFTER_SECONDS))
    return ",".join(items)


def _rlimit(name: str, soft: int, hard: int | None = None) -> str:
    current = resource.getrlimit(getattr(resource, name))[1]
    hard = soft if hard is None else hard
    if current != resource.RLIM_INFINITY:
        soft, hard = min(soft, current), min(hard, current)
    return f"{name}={soft}:{hard}"


def user_tasks() -> int:
    """How many tasks (threads) this process's real user runs now: what RLIMIT_NPROC counts."""
    uid, count = os.getuid(), 0
    for pid in all_pids():
        try:
            if os.stat(f"/proc/{pid}").st_uid != uid:
                continue
        except OSError:
            continue
        fields = proc_stat(pid)
        count += int(fields[17]) if fields and len(fields) > 17 else 0
    return count


def limit_notes(limits: Limits, exit_code: int | None, output: str, *, processes_hit: bool = False) -> list[str]:
    """One line for each limit the command's end shows it hit."""
    if exit_code == 0 and not processes_hit:
        return []
    notes = []
    if limits.file_size_mb and (_by_signal(exit_code, signal.SIGXFSZ) or _shows(output, _FILE_SIGNS)):
        notes.append(f"stopped: file size limit ({limits.file_size_mb} MB) exceeded")
    if limits.cpu_seconds and (_by_signal(exit_code, signal.SIGXCPU) or _shows(output, _CPU_SIGNS)):
        notes.append(f"killed: CPU time limit ({limits.cpu_seconds} s per process) exceeded")
    if limits.memory_mb and _shows(output, _MEMORY_SIGNS):
        notes.append(f"stopped: memory limit ({limits.memory_mb} MB per process) reached")
    if limits.processes and (processes_hit or _shows(output, _PROCESS_SIGNS)):
        notes.append(f"stopped: process limit ({limits.processes} processes) reached")
    return notes


def _by_signal(exit_code: int | None, sig: int) -> bool:
    """Killed by `sig` (the launcher's negative code) or, as the shell reports a child killed so, 128+sig."""
    return exit_code in (-sig, 128 + sig)


def _shows(output: str, signs: tuple[str, ...]) -> bool:
    return any(sign in output for sign in signs)
