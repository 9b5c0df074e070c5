"""One child process, measured: wall time, peak RSS and CPU time of exactly that child.

Peak RSS comes from `/usr/bin/time -f %M` when it exists. The rusage that `os.wait4` (or
RUSAGE_CHILDREN) reports for a child of this process is NOT usable on Linux: exec() folds the
high-water RSS of the pre-exec image into the child's `ru_maxrss`, and with vfork/posix_spawn
that image is this (large) benchmark process, so `python -c pass` would "use" 39 MB. Through
/usr/bin/time the pre-exec image is time's own (~2 MB). Without it, the wait4 figure is kept and
flagged as an upper bound.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ProcessSample:
    wall: float  # seconds, from just before the fork to the child reaped
    max_rss_kb: int  # peak resident set size (kilobytes on Linux)
    cpu: float  # user + system seconds
    returncode: int
    stdout: str
    stderr: str
    rss_exact: bool = True  # False: measured with wait4, an upper bound (see the module docstring)

    @property
    def max_rss_mb(self) -> float:
        return self.max_rss_kb / 1024


TIME = shutil.which("time", path="/usr/bin:/bin")


def measure(cmd: Sequence[str], env: dict[str, str] | None = None, timeout: float = 60) -> ProcessSample:
    """Run `cmd` with stdin closed and its output captured in files (no pipe to drain meanwhile)."""
    with tempfile.TemporaryDirectory(prefix="claw-bench-proc-") as tmp:
        usage_file = Path(tmp) / "usage"
        argv = [TIME, "-q", "-f", "%M %U %S", "-o", str(usage_file), *cmd] if TIME else list(cmd)
        with open(Path(tmp) / "out", "w+b") as out, open(Path(tmp) / "err", "w+b") as err:
            started = time.perf_counter()
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
            watchdog = threading.Timer(timeout, proc.kill)  # a blocking wait4, so no polling steals CPU
            watchdog.start()
            try:
                _pid, status, usage = os.wait4(proc.pid, 0)
            finally:
                watchdog.cancel()
            wall = time.perf_counter() - started
            proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, so Popen must not wait again
            if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
                raise TimeoutError(f"{' '.join(cmd)} did not finish within {timeout} s")
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        if TIME:
            rss_kb, user, system = usage_file.read_text().split()[-3:]
            max_rss_kb, cpu, exact = int(rss_kb), float(user) + float(system), True
        else:
            max_rss_kb, cpu, exact = usage.ru_maxrss, usage.ru_utime + usage.ru_stime, False
    return ProcessSample(wall, max_rss_kb, cpu, proc.returncode, stdout, stderr, exact)


def user_env(drop: tuple[str, ...] = ("CLAW_", "OPENAI_")) -> dict[str, str]:
    """This environment as a user's shell would have it for claw: without variables starting with `drop`,
    and without PYTHONDONTWRITEBYTECODE, under which every process compiles claw from source (measured:
    0.5 s of CPU a cold turn) where a user's install loads .pyc files (the warm-up runs write them)."""
    return {k: v for k, v in os.environ.items() if not k.startswith(drop) and k != "PYTHONDONTWRITEBYTECODE"}


def checked(cmd: Sequence[str], env: dict[str, str] | None = None, timeout: float = 60) -> ProcessSample:
    """`measure`, raising if the command failed."""
    sample = measure(cmd, env, timeout)
    if sample.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {sample.returncode}: {sample.stderr[-2000:]}")
    return sample
