"""Nothing an exec command starts outlives it: background children, `setsid`, `nohup`, sandboxed or not.

With the sandbox the PID namespace ends with the command; without it the reaper (a subreaper) ends
the tree. Every test runs both ways, follows the processes by a unique argument from the host, first
proves they ran, then that they are gone.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from claw.tools.base import ToolContext
from claw.tools.registry import ToolRegistry
from tests.support.waiting import deadline
from tests.tools.conftest import MakeCtx
from tests.tools.helpers import wait_until
from tests.tools.sandbox_support import require_bwrap, running_with_arg, unique_sleep

MODES = ["all", "off"]


@pytest.fixture(params=MODES, ids=["sandboxed", "unsandboxed"])
def ctx(request: pytest.FixtureRequest, make_ctx: MakeCtx) -> ToolContext:
    if request.param != "off":
        require_bwrap()
    return make_ctx(exec={"security": "full", "ask": "off"}, sandbox={"mode": request.param})


def escapees() -> tuple[list[str], str]:
    """Three sleepers started the three ways that leave a process group behind, and their command line."""
    args = [unique_sleep() for _ in range(3)]
    command = f"sleep {args[0]} & setsid sleep {args[1]} & nohup sleep {args[2]} >/dev/null 2>&1 &"
    return args, command


async def all_running(args: list[str]) -> None:
    async with deadline(30, f"the sleepers {args} to run"):
        while not all(running_with_arg(arg) for arg in args):
            await asyncio.sleep(0.02)


def all_gone(args: list[str]) -> bool:
    return wait_until(lambda: not any(running_with_arg(arg) for arg in args), timeout=10.0)


async def test_background_children_end_with_the_command(
    registry: ToolRegistry, ctx: ToolContext, workspace: Path
) -> None:
    args, start = escapees()
    command = f"{start} echo started; while [ ! -e go ]; do sleep 0.05; done; echo finished"
    call = asyncio.create_task(registry.call("exec", json.dumps({"command": command}), ctx))
    await all_running(args)
    (workspace / "go").touch()
    result = await call

    assert result.text == "started\nfinished\n\nexit code: 0"
    assert await asyncio.to_thread(all_gone, args), [running_with_arg(a) for a in args]


async def test_a_timeout_ends_a_setsid_child_that_ignores_sigterm(registry: ToolRegistry, ctx: ToolContext) -> None:
    stubborn, waiting = unique_sleep(), unique_sleep()
    command = f"""setsid sh -c 'trap "" TERM; exec sleep {stubborn}' & sleep {waiting}; echo never"""
    call = asyncio.create_task(registry.call("exec", json.dumps({"command": command, "timeout": 2}), ctx))
    await all_running([stubborn, waiting])
    result = await call

    assert result.text.startswith("exec timed out after 2s"), result.text
    assert "never" not in result.text
    assert await asyncio.to_thread(all_gone, [stubborn, waiting])


async def test_an_abort_ends_a_setsid_child_that_ignores_sigterm(registry: ToolRegistry, ctx: ToolContext) -> None:
    stubborn = unique_sleep()
    command = f"""setsid sh -c 'trap "" TERM; exec sleep {stubborn}' & wait"""
    call = asyncio.create_task(registry.call("exec", json.dumps({"command": command}), ctx))
    await all_running([stubborn])
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert await asyncio.to_thread(all_gone, [stubborn])


@pytest.mark.parametrize("mode", MODES, ids=["sandboxed", "unsandboxed"])
@pytest.mark.parametrize("processes", [0, 256], ids=["no-process-limit", "process-limit"])
async def test_children_end_with_the_turn_even_when_the_command_kills_its_parent(
    registry: ToolRegistry, make_ctx: MakeCtx, workspace: Path, mode: str, processes: int
) -> None:
    """The red team's break: `kill -9 $PPID` kills the reaper, whose orphans then lived on past the turn and
    the next start. Unsandboxed, the call now ends at once (its launcher is gone) and takes them all;
    sandboxed, $PPID is the PID namespace's init, which ignores it, and the command runs into its timeout.
    With and without a process limit: for a root gateway that limit is a cgroup, which would end them too."""
    if mode != "off":
        require_bwrap()
    ctx = make_ctx(exec={"security": "full", "ask": "off", "maxProcesses": processes}, sandbox={"mode": mode})
    args, start = escapees()
    last = unique_sleep()  # the shell goes on after its parent is gone
    command = f"{start} while [ ! -e go ]; do sleep 0.05; done; kill -9 $PPID; sleep {last}; echo never"
    call = asyncio.create_task(registry.call("exec", json.dumps({"command": command, "timeout": 5}), ctx))
    await all_running(args)
    (workspace / "go").touch()
    result = await call

    assert "never" not in result.text
    assert await asyncio.to_thread(all_gone, [*args, last]), [running_with_arg(a) for a in [*args, last]]
