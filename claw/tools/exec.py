"""The `exec` tool: run a shell command in the workspace, if the exec policy (or the user) allows it.

The command runs sandboxed under bwrap where the agent's `sandbox` settings want it and bwrap works
(claw/tools/sandbox_choice.py says when, claw/tools/sandbox.py what the sandbox holds), else under the
reaper; either way nothing it starts outlives the call (claw/tools/exec_launch.py). It gets a small
environment (claw/tools/exec_env.py) and starts with resource limits and the user's umask
(claw/tools/exec_limits.py). The policy, the
launchers and the sandbox are imported on the first call: a turn that runs no command loads none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claw.paths import Paths, user_umask
from claw.tools.args import number_arg, str_arg
from claw.tools.base import ToolContext, ToolResult
from claw.tools.exec_records import ExecRecords
from claw.tools.truncate import result_limit

if TYPE_CHECKING:
    from claw.tools.allow_entry import AllowEntry
    from claw.tools.exec_cgroup import PidsCgroup
    from claw.tools.exec_launch import Launch
    from claw.tools.exec_limits import Limits
    from claw.tools.exec_policy import ExecVerdict
    from claw.tools.exec_process import ProcessOutcome
    from claw.tools.sandbox import SandboxSpec

_HOW_TO_ALLOW = (
    "approve it when asked, add its binary to agents.defaults.tools.exec.allowlist, or allow everything with "
    "`claw config set agents.defaults.tools.exec.security full`"
)

_HOW_TO_ALLOW_EXACTLY = (
    'approve this exact command when asked ("always" then allows exactly this command, nothing wider), or allow '
    "everything with `claw config set agents.defaults.tools.exec.security full`"
)

_HOW_TO_ALLOW_ONCE = (
    "no allowlist entry can ever match this command, so approve it once when asked, or allow everything with "
    "`claw config set agents.defaults.tools.exec.security full`"
)

_HOW_TO_ENABLE = (
    "enable it with `claw config set agents.defaults.tools.exec.security allowlist` (asks before unlisted "
    "commands) or `claw config set agents.defaults.tools.exec.security full`"
)


class ExecTool:
    """Runs `/bin/sh -c command` in the workspace under the exec policy, with a timeout and an output cap.

    Given the state dir's `paths` (the gateway's), it records each running command there for
    `end_leftovers` and hides exactly those dirs from sandboxed commands; without, it records nothing and
    hides the dirs `Paths.from_env()` names."""

    name = "exec"
    description = (
        "Run a shell command with /bin/sh in the workspace directory and return its combined stdout and "
        "stderr followed by its exit code. Commands may need the user's approval; a denied command returns "
        "an error saying why. Long output is cut in the middle. `timeout` (seconds) is capped by the "
        "configured maximum, which is also the default; on timeout the command and all its children are "
        "killed. The environment is a small default set (PATH, HOME, locale) without secrets; processes, "
        "memory, file size and CPU time are limited, and a limit that is hit is named. Nothing the "
        "command starts outlives the call, background processes included. Commands usually run in a sandbox: "
        "the workspace is writable, the system read-only, /tmp private and empty, the home directory hidden, "
        "and there is no network unless configured. Do not start long-running servers or interactive programs: "
        "stdin is empty and the call "
        "waits for the command to finish."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The shell command line to run."},
            "timeout": {
                "type": "number",
                "exclusiveMinimum": 0,
                "description": "Seconds before the command is killed.",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }

    def __init__(self, paths: Paths | None = None) -> None:
        self._paths = paths
        self._records = ExecRecords(paths.exec_runs_dir) if paths is not None else None
        self._noticed: set[str] = set()
        """Sessions already told that their commands run unsandboxed (once per session and process)."""

    def end_leftovers(self) -> list[int]:
        """Kill what the commands of a gateway that died (SIGKILL, a crash) left running; the pids killed."""
        if os.geteuid() == 0:  # only root's commands get a cgroup (claw/tools/exec_cgroup.py)
            from claw.tools.exec_cgroup import end_stale

            end_stale()
        return self._records.end_leftovers() if self._records is not None else []

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from claw.tools.exec_env import command_env
        from claw.tools.exec_launch import reaped, sandboxed
        from claw.tools.exec_limits import Limits, launch_spec, limit_notes
        from claw.tools.exec_process import ABORT_GRACE_SECONDS, TIMEOUT_GRACE_SECONDS, run_launch
        from claw.tools.sandbox_choice import choose
        from claw.tools.sandbox_probe import probe_sandbox

        command = str_arg(args, "command", tool=self.name, allow_empty=False)
        settings = ctx.settings.tools.exec
        requested = number_arg(args, "timeout", tool=self.name)
        timeout = min(requested, settings.timeout_seconds) if requested else settings.timeout_seconds
        if not ctx.workspace.is_dir():
            return ToolResult(f"exec: workspace {ctx.workspace} does not exist; run `claw init`", is_error=True)
        env = command_env(settings.pass_env)
        # The run's skill variables (skills.entries.<k>.env / apiKey) go in only where the environment does not
        # already set the name, so a value the user passed (tools.exec.passEnv) wins, as in OpenClaw. They are
        # deliberately not scrubbed: the user configured them for the skill's commands. They never go into a
        # log, event or transcript (only what the command itself prints does).
        for name, value in ctx.skill_env.items():
            if not env.get(name):
                env[name] = value
        probe = await asyncio.to_thread(probe_sandbox)  # runs bwrap once per process, then cached
        choice = choose(
            ctx.settings.sandbox, probe, agent_id=ctx.agent_id, session_key=ctx.session_key, channel=ctx.channel
        )
        if choice.refusal is not None:
            return _denied(choice.refusal)
        refusal = await self._authorize(command, ctx, env.get("PATH"))
        if refusal is not None:
            return refusal
        limits = Limits(
            settings.max_processes, settings.max_memory_mb, settings.max_file_size_mb, settings.max_cpu_seconds
        )
        use_bwrap = choice.sandboxed and probe.bwrap is not None
        cgroup = _cgroup_for(limits, use_bwrap)  # a mkdir and a write: no thread, so no cancellation between
        try:
            start = await asyncio.to_thread(
                launch_spec, limits, umask=user_umask(), cgroup_procs=cgroup.procs if cgroup else None
            )
            launch: Launch
            if use_bwrap and probe.bwrap is not None:
                launch = sandboxed(probe.bwrap, self._spec(ctx), command, start=start)
            else:
                launch = reaped(
                    command, env, timeout_grace=TIMEOUT_GRACE_SECONDS, abort_grace=ABORT_GRACE_SECONDS, start=start
                )
            outcome = await run_launch(
                launch,
                cwd=ctx.workspace,
                env=env,
                time_limit=timeout,
                max_chars=_output_cap(ctx),
                records=self._records,
            )
            processes_hit = cgroup is not None and cgroup.hit()
        finally:
            if cgroup is not None:
                cgroup.end()  # normally empty already: the launcher ended the tree; then one rmdir
        notes = limit_notes(limits, outcome.exit_code, outcome.output, processes_hit=processes_hit)
        notice = None
        if choice.notice is not None and ctx.session_key not in self._noticed:
            self._noticed.add(ctx.session_key)
            notice = choice.notice
        return _format(outcome, timeout, notice, notes)

    def _spec(self, ctx: ToolContext) -> SandboxSpec:
        from claw.tools.sandbox import SandboxSpec

        settings = ctx.settings.sandbox
        paths = self._paths or Paths.from_env()
        return SandboxSpec(
            workspace=ctx.workspace,
            hidden=(paths.config_dir, paths.data_dir, *_homes()),
            read_only=ctx.read_roots,
            binds=settings.parsed_binds(),
            network=settings.network,
        )

    async def _authorize(self, command: str, ctx: ToolContext, path_env: str | None) -> ToolResult | None:
        """None if the command may run; otherwise the error result that explains why not."""
        from claw.tools.exec_policy import decide, fallback

        settings = ctx.settings.tools.exec
        patterns: list[str | AllowEntry] = [*settings.allowlist, *ctx.approvals.allowlist(ctx.agent_id)]
        verdict = decide(command, settings, patterns, cwd=ctx.workspace, path_env=path_env)
        if verdict.action == "deny":
            hint = _HOW_TO_ENABLE if settings.security == "deny" else _how_to_allow(verdict)
            return _denied(f"exec denied: {verdict.reason}; {hint}")
        if verdict.action == "allow":
            return None
        request = ctx.approval_request(command, verdict.reason, allow_always=bool(verdict.remember))
        decision = await ctx.approvals.ask(request)
        if decision is None:
            verdict = fallback(verdict, settings)
            if verdict.action == "allow":
                return None
            return _denied(
                f"exec denied: approval required but no one is available to approve it ({verdict.reason}); "
                + _how_to_allow(verdict)
            )
        if decision == "deny":
            return _denied("exec denied by user")
        if decision == "allow-always":
            for entry in verdict.remember:  # the binary, or for a dangerous form the exact command
                ctx.approvals.remember(ctx.agent_id, entry, command)
        return None


def _how_to_allow(verdict: ExecVerdict) -> str:
    """Only advice that can work: no allowlist entry for a command that none can ever match."""
    if not verdict.remember:
        return _HOW_TO_ALLOW_ONCE
    return _HOW_TO_ALLOW_EXACTLY if verdict.exact_only else _HOW_TO_ALLOW


def _homes() -> list[Path]:
    """The user's home as $HOME says and as the account says (they can differ, e.g. under sudo)."""
    homes = {Path.home()}
    with contextlib.suppress(KeyError):  # a uid without a passwd entry (some containers)
        homes.add(Path(pwd.getpwuid(os.getuid()).pw_dir))
    return sorted(homes)


def _output_cap(ctx: ToolContext) -> int:
    """Cut output here, where the true total is known, rather than leave it to the registry's cut."""
    return min(ctx.settings.tools.exec.max_output_chars, max(500, result_limit(ctx.settings) - 200))


def _denied(message: str) -> ToolResult:
    return ToolResult(message, is_error=True)


def _cgroup_for(limits: Limits, sandboxed: bool) -> PidsCgroup | None:
    """The pids cgroup that bounds a root gateway's command (the kernel's RLIMIT_NPROC spares root)."""
    from claw.tools.exec_cgroup import PidsCgroup, cgroup_name

    if not limits.processes or os.geteuid() != 0:
        return None
    return PidsCgroup.make(cgroup_name(), limits.processes, sandboxed=sandboxed)


def _format(
    outcome: ProcessOutcome, timeout: float, notice: str | None = None, notes: list[str] | None = None
) -> ToolResult:
    parts: list[str] = [notice] if notice else []
    if outcome.timed_out:
        parts.append(f"exec timed out after {timeout:g}s; the command and its children were killed")
    if outcome.output:
        parts.append(outcome.output.rstrip("\n"))
    code = outcome.exit_code
    status = f"exit code: {code}"
    if code is not None and code < 0:
        status += f" (killed by {_signal_name(-code)})"
    parts.append("\n".join([*(notes or []), status]))
    return ToolResult("\n\n".join(parts), is_error=outcome.timed_out or code != 0)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
