"""Per-command resource limits, sandboxed and not: a fork bomb, a memory hog, a big file and a CPU spinner each
end at their limit with a result that names it, and leave nothing running.

The red team's partial: one command ran 800 processes and 3 GiB, bounded only by the timeout. Every
command here is bounded twice over so that a broken limit cannot hurt the machine: the fork bomb starts at
most 2,000 sleepers (and every one is killed after the call), the hog asks for 300 MB, the file stops at
5 MB, the spinner has a wall-clock timeout.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from claw.tools.base import ToolContext
from claw.tools.registry import ToolRegistry
from tests.support.processes import REPO
from tests.support.unavailable import unavailable
from tests.tools.conftest import MakeCtx
from tests.tools.helpers import wait_until
from tests.tools.sandbox_support import require_bwrap, running_with_arg, unique_sleep

MODES = ["all", "off"]


@pytest.fixture(params=MODES, ids=["sandboxed", "unsandboxed"])
def limited(request: pytest.FixtureRequest, make_ctx: MakeCtx):  # noqa: ANN201 - a factory
    if request.param != "off":
        require_bwrap()

    def make(**limits: Any) -> ToolContext:
        return make_ctx(exec={"security": "full", "ask": "off", **limits}, sandbox={"mode": request.param})

    return make


async def run(registry: ToolRegistry, ctx: ToolContext, command: str, timeout: float = 60) -> str:
    result = await registry.call("exec", json.dumps({"command": command, "timeout": timeout}), ctx)
    return result.text


async def test_a_fork_bomb_stops_at_the_process_limit(registry: ToolRegistry, limited) -> None:
    sleeper = unique_sleep()
    command = f"i=0; while [ $i -lt 2000 ]; do sleep {sleeper} & i=$((i+1)); done; echo started all $i"
    seen: list[int] = []

    async def watch() -> None:
        while True:
            seen.append(len(await asyncio.to_thread(running_with_arg, sleeper)))
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch())
    try:
        text = await run(registry, limited(maxProcesses=64), command)
    finally:
        watcher.cancel()

    assert "started all" not in text, text[-500:]
    assert "stopped: process limit (64 processes) reached" in text, text[-500:]
    assert max(seen, default=0) <= 64, max(seen)
    assert await asyncio.to_thread(wait_until, lambda: not running_with_arg(sleeper), 10.0)


async def test_the_process_limit_leaves_ordinary_commands_alone(registry: ToolRegistry, limited) -> None:
    text = await run(registry, limited(maxProcesses=64), "for i in 1 2 3 4 5 6 7 8; do sleep 0.1 & done; wait; echo ok")
    assert text == "ok\n\nexit code: 0", text


async def test_a_memory_hog_stops_at_the_memory_limit(registry: ToolRegistry, limited) -> None:
    # `tail -n 1` keeps a line without newline whole: 300 MB of it, against a limit of 64 MB.
    text = await run(registry, limited(maxMemoryMb=64), "head -c 300000000 /dev/zero | tail -n 1 >/dev/null")
    assert "memory exhausted" in text, text
    assert "stopped: memory limit (64 MB per process) reached" in text, text


async def test_a_big_file_stops_at_the_file_size_limit(registry: ToolRegistry, limited, workspace: Path) -> None:
    text = await run(registry, limited(maxFileSizeMb=1), "head -c 5000000 /dev/zero > big.bin")
    assert "stopped: file size limit (1 MB) exceeded" in text, text
    assert (workspace / "big.bin").stat().st_size == 1024 * 1024


async def test_a_cpu_spinner_is_killed_at_the_cpu_time_limit(registry: ToolRegistry, limited) -> None:
    text = await run(registry, limited(maxCpuSeconds=1), "while :; do :; done", timeout=30)
    assert "timed out" not in text, text
    assert "killed: CPU time limit (1 s per process) exceeded" in text, text


async def test_without_limits_nothing_is_said(registry: ToolRegistry, limited) -> None:
    ctx = limited(maxProcesses=0, maxMemoryMb=0, maxFileSizeMb=0, maxCpuSeconds=0)
    text = await run(registry, ctx, "head -c 3000000 /dev/zero > f.bin; echo 'File too large'; exit 1")
    assert text == "File too large\n\nexit code: 1", text


def test_a_dead_gateways_cgroup_is_ended_at_the_next_start() -> None:
    """A root gateway killed mid-command leaves its command's cgroup: the next one ends what is in it."""
    import os
    import subprocess

    from claw.tools.exec_cgroup import PREFIX, PidsCgroup, end_stale
    from claw.tools.process_reaper import start_time

    if os.geteuid() != 0:
        pytest.skip("only a root gateway's commands get a cgroup")
    gone = subprocess.Popen(["sleep", "0"])
    started = start_time(gone.pid)
    gone.wait()
    cgroup = PidsCgroup.make(f"{PREFIX}{gone.pid}-{started}-test", 8, sandboxed=False)
    if cgroup is None:
        unavailable("needs a pids cgroup this root process may make (cgroup v1 pids, or v2 with pids delegated)")
    sleeper = unique_sleep()
    left = subprocess.Popen(["/bin/sh", "-c", f'echo 0 > "$0" && exec sleep {sleeper}', cgroup.procs])
    try:
        # Any gateway that starts meanwhile (another test worker's) ends stale cgroups too, this one included:
        # then the command is ended before this test's own call, which has nothing left to end.
        assert wait_until(lambda: (running_with_arg(sleeper) and cgroup.members()) or left.poll() is not None)
        ended_elsewhere = left.poll() is not None
        ended = end_stale()
        assert left.wait(5) == -9
        assert ended >= 1 or ended_elsewhere
        assert wait_until(lambda: not cgroup.path.exists())
    finally:
        left.kill()
        cgroup.end()


_AS_USER = """
import os, sys
sys.path.insert(0, sys.argv[1])
from claw.tools.exec_limits import Limits, launch_spec
spec = launch_spec(Limits(processes=32), umask=0o22)
reaper = os.path.join(sys.argv[1], "claw", "tools", "process_reaper.py")
parent, command = str(os.getppid()), ["/bin/sh", "-c", sys.argv[2]]
os.execv(sys.executable, [sys.executable, "-I", "-S", reaper, "1", "0.25", parent, "-s", spec, "--", *command])
"""


async def test_a_non_root_users_fork_bomb_stops_at_the_process_limit() -> None:
    """The RLIMIT_NPROC path (every user but root): the limit is the user's current count plus the setting.
    Run as `nobody` (so root is needed to get there) with the system's Python, through the real reaper."""
    import os
    import shutil
    import subprocess

    from claw.tools.exec_limits import Limits, limit_notes

    python, setpriv = "/usr/bin/python3", shutil.which("setpriv")
    if os.geteuid() != 0:
        pytest.skip("needs root to run a command as nobody")
    if setpriv is None or not os.access(python, os.X_OK):
        unavailable("needs setpriv (util-linux) and /usr/bin/python3 to run a command as nobody")
    sleeper = unique_sleep()
    command = f"i=0; while [ $i -lt 2000 ]; do sleep {sleeper} & i=$((i+1)); done; echo started all $i"
    repo = str(REPO)
    argv = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", _AS_USER, repo, command]
    seen: list[int] = []
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd="/", stdin=subprocess.DEVNULL
    )
    try:
        async with asyncio.timeout(60):
            reading = asyncio.create_task(proc.communicate())
            while not reading.done():
                seen.append(len(await asyncio.to_thread(running_with_arg, sleeper)))
                await asyncio.sleep(0.05)
            output = (await reading)[0].decode(errors="replace")
    finally:
        if proc.returncode is None:
            proc.kill()
    assert "started all" not in output, output[-300:]
    assert limit_notes(Limits(processes=32), proc.returncode, output) == [
        "stopped: process limit (32 processes) reached"
    ], output[-300:]
    assert max(seen, default=0) <= 32, max(seen)
    assert await asyncio.to_thread(wait_until, lambda: not running_with_arg(sleeper), 10.0)
