"""kill -9 of a real `claw gateway run` in the middle of an exec call: the command's processes do not survive.

The model (the scripted server) asks for one exec whose command starts sleepers the three ways that leave
a process group (`&`, `setsid`, `nohup`) and then waits. The gateway is killed while it runs. Sandboxed,
bwrap's `--die-with-parent` ends the PID namespace; unsandboxed, the reaper gets its parent-death signal
and ends the tree. And when the reaper itself was killed too (nothing left to react), the next gateway
to start ends what is left, from the record in the state dir.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from claw.tools.exec_launch import REAPER_SCRIPT
from tests.channels.processes import REPO, GatewayProc, claw, wait_until
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.tools.sandbox_support import parent_of, require_bwrap, running_with_arg, unique_sleep

CONFIG = """
[agents.defaults.tools.exec]
security = "full"
ask = "off"

[agents.defaults.sandbox]
mode = "{mode}"
"""
_followed: list[str] = []
"""The arguments of the processes the current test follows, for its clean-up."""


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes] | GatewayProc]]:
    """The gateways and `claw agent`s a test starts, stopped after it; and any sleeper a failure left."""
    started: list[subprocess.Popen[bytes] | GatewayProc] = []
    yield started
    for proc in started:
        if isinstance(proc, GatewayProc):
            proc.stop()
        else:
            proc.kill()
            proc.wait(30)
    for pid in [pid for arg in _followed for pid in running_with_arg(arg)]:
        os.kill(pid, signal.SIGKILL)
    _followed.clear()


def start_turn(claw_env: ClawEnv, procs: list[subprocess.Popen[bytes] | GatewayProc], mode: str) -> list[str]:
    """A gateway in the middle of an exec call; the sleepers' unique arguments, once all of them run."""
    assert claw(claw_env.env, "init").returncode == 0
    (claw_env.home / "config.toml").write_text(CONFIG.format(mode=mode), encoding="utf-8")
    args = [unique_sleep() for _ in range(4)]
    command = f"sleep {args[0]} & setsid sleep {args[1]} & nohup sleep {args[2]} >/dev/null 2>&1 & sleep {args[3]}"
    _followed.extend([*args, command])  # the shell's argv holds the command line as it is
    claw_env.server.script(tool_call("exec", {"command": command}), text("done"))
    procs.append(GatewayProc(claw_env.env))
    agent = subprocess.Popen(
        [sys.executable, "-m", "claw", "agent", "-m", "run the sleepers"],
        env={**claw_env.env, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    procs.append(agent)
    wait_until(lambda: all(running_with_arg(arg) for arg in args), what="the command's sleepers to run")
    return args


def gone(args: list[str]) -> bool:
    return not any(running_with_arg(arg) for arg in args)


@pytest.mark.parametrize("mode", ["all", "off"], ids=["sandboxed", "unsandboxed"])
def test_kill_9_of_the_gateway_takes_the_running_command_with_it(
    claw_env: ClawEnv, procs: list[subprocess.Popen[bytes] | GatewayProc], mode: str
) -> None:
    if mode == "all":
        require_bwrap()
    args = start_turn(claw_env, procs, mode)
    gateway = procs[0]
    assert isinstance(gateway, GatewayProc)

    gateway.proc.kill()
    assert gateway.proc.wait(30) == -signal.SIGKILL

    wait_until(lambda: gone(args), timeout=10, what=f"the sleepers {args} to end with the gateway")


def test_the_next_gateway_ends_what_a_gateway_killed_with_its_reaper_left(
    claw_env: ClawEnv, procs: list[subprocess.Popen[bytes] | GatewayProc]
) -> None:
    args = start_turn(claw_env, procs, "off")
    gateway = procs[0]
    assert isinstance(gateway, GatewayProc)
    # This gateway's own reaper: other tests (other workers) may run reapers of their own at the same time.
    (reaper,) = [pid for pid in running_with_arg(str(REAPER_SCRIPT)) if parent_of(pid) == gateway.proc.pid]
    # The worst case: the reaper dies too, so no one is left to end the tree. Frozen first, the gateway
    # cannot see its child go (and drop the record) before it is killed itself.
    os.kill(gateway.proc.pid, signal.SIGSTOP)
    os.kill(reaper, signal.SIGKILL)
    gateway.proc.kill()
    gateway.proc.wait(30)
    assert all(running_with_arg(arg) for arg in args), "the sleepers should have outlived both"
    records = list((claw_env.home / "exec-runs").glob("*.json"))
    assert [r.name for r in records] == [f"{reaper}.json"]

    procs.append(GatewayProc(claw_env.env))

    wait_until(lambda: gone(args), timeout=15, what=f"the next gateway to end the sleepers {args}")
    assert not records[0].exists()
