"""What the exec sandbox costs: `echo hi` started sandboxed (bwrap) and not, as exec starts it.

Run from the repo root:  python -m bench.sandbox_exec  [--runs 50]

Measured where the sandbox makes the difference, `run_launch` (claw/tools/exec_process.py: spawn, output
pipe, wait, the stop machinery armed), with the launches `ExecTool` builds, the same scrubbed environment
and a temporary workspace; interleaved run by run so that the machine's drift hits them alike:

  plain      `/bin/sh -c "echo hi"` in its own group: what exec did before the sandbox (the floor)
  reaped     sandbox off: under claw/tools/process_reaper.py (a Python subreaper), default limits applied
  sandboxed  under bwrap, with the mounts of an agent's default sandbox (argv built each run, as exec does)
             and the default limits applied between fork and exec

Target: sandboxed p50 less than 20 ms above plain p50. For scale, the whole tool call (`ToolRegistry.call`:
arguments, the exec policy, the sandbox choice, the launch, the result) is timed too, sandboxed and not.
The bwrap probe runs once before measuring, as it does once per gateway process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.report import Target, finish, machine_line, median, spread
from claw.config import AgentSettings, ExecSettings
from claw.paths import Paths
from claw.tools.base import ApprovalRequest, Decision, ToolContext
from claw.tools.exec_env import command_env
from claw.tools.exec_launch import Launch, reaped, sandboxed, shell_argv
from claw.tools.exec_limits import Limits, launch_spec
from claw.tools.exec_process import run_launch
from claw.tools.registry import ToolRegistry, builtin_tools
from claw.tools.sandbox import SandboxSpec
from claw.tools.sandbox_probe import probe_sandbox

TARGET_MS = 20.0


class NoApprovals:
    """`security = "full"` never asks; the benchmark has nobody to ask anyway."""

    def allowlist(self, agent_id: str) -> list[str]:
        return []

    def remember(self, agent_id: str, pattern: str, command: str) -> None:
        return None

    async def ask(self, request: ApprovalRequest) -> Decision | None:
        return None


def context(workspace: Path, mode: str) -> ToolContext:
    settings = AgentSettings.model_validate(
        {"tools": {"exec": {"security": "full", "ask": "off"}}, "sandbox": {"mode": mode}}
    )
    return ToolContext(
        workspace=workspace,
        agent_id="main",
        session_key="agent:main:main",
        run_id="bench",
        settings=settings,
        approvals=NoApprovals(),
    )


async def timed_tool(registry: ToolRegistry, ctx: ToolContext) -> float:
    started = time.perf_counter()
    result = await registry.call("exec", json.dumps({"command": "echo hi"}), ctx)
    elapsed = time.perf_counter() - started
    if result.text != "hi\n\nexit code: 0":
        raise SystemExit(f"unexpected exec result: {result.text!r}")
    return elapsed


async def timed_launch(build: Callable[[], Launch], workspace: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    outcome = await run_launch(build(), cwd=workspace, env=env, time_limit=30, max_chars=10_000)
    elapsed = time.perf_counter() - started
    if outcome.output != "hi\n":
        raise SystemExit(f"unexpected output: {outcome.output!r}")
    return elapsed


async def measure(runs: int) -> dict[str, list[float]]:
    probe = await asyncio.to_thread(probe_sandbox)
    if not probe.usable or probe.bwrap is None:
        raise SystemExit(f"bwrap cannot sandbox here: {probe.detail} ({probe.fix})")
    print(f"sandbox: {probe.detail}")
    bwrap, env, registry = probe.bwrap, command_env(), ToolRegistry(builtin_tools())
    times: dict[str, list[float]] = {name: [] for name in ("plain", "reaped", "sandboxed", "tool off", "tool all")}
    with tempfile.TemporaryDirectory(prefix="claw-bench-sandbox-") as tmp:
        workspace = Path(tmp)
        paths = Paths.from_env()
        defaults = ExecSettings()  # the default limits, as exec applies them (no cgroup: root's costs a mkdir more)
        limits = Limits(
            defaults.max_processes, defaults.max_memory_mb, defaults.max_file_size_mb, defaults.max_cpu_seconds
        )
        start = launch_spec(limits, umask=0o022)
        hidden = (paths.config_dir, paths.data_dir, Path.home())
        launches: dict[str, Callable[[], Launch]] = {
            "plain": lambda: Launch(tuple(shell_argv("echo hi")), sandboxed=False),
            "reaped": lambda: reaped("echo hi", env, timeout_grace=1.0, abort_grace=0.25, start=start),
            "sandboxed": lambda: sandboxed(bwrap, SandboxSpec(workspace, hidden=hidden), "echo hi", start=start),
        }
        contexts = {"tool off": context(workspace, "off"), "tool all": context(workspace, "all")}
        for run in range(runs + 3):  # three warm-up rounds
            sample = {name: await timed_launch(build, workspace, env) for name, build in launches.items()}
            sample |= {name: await timed_tool(registry, ctx) for name, ctx in contexts.items()}
            if run >= 3:
                for name, seconds in sample.items():
                    times[name].append(seconds)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    print(machine_line())
    times = asyncio.run(measure(args.runs))
    print(f"`echo hi`, {args.runs} runs each, interleaved")
    for name, seconds in times.items():
        print(spread(name, seconds))
    plain = median(times["plain"])
    for name in ("reaped", "sandboxed"):
        print(f"{name} adds (p50 - plain p50): {(median(times[name]) - plain) * 1000:.2f} ms")
    added = (median(times["sandboxed"]) - plain) * 1000
    return finish([Target("sandbox_exec_added_p50", added, TARGET_MS, "ms")])


if __name__ == "__main__":
    sys.exit(main())
