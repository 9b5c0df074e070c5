"""`claw doctor [--json] [--fix] [--agent ID]`: health checks that explain themselves; `claw doctor model [REF]`
(claw/cli/doctor_model.py) tries the model endpoint for real.

Each check reports ok, warn or fail with what it saw and, when something is wrong, the command or
config key that fixes it. `--fix` first makes the repairs that are always safe (see
`claw.doctor.repair`), then checks. The checks live in the `claw.doctor` package and are imported
only when the command runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import typer

from claw.cli.common import AgentOption, JsonOption
from claw.cli.doctor_model import model as doctor_model

if TYPE_CHECKING:
    from pathlib import Path

    from claw.config import Config
    from claw.finding import Finding
    from claw.paths import Paths

app = typer.Typer(
    help="Check the state dir, token, config, workspace, model endpoint, gateway, sessions, skills, hooks and memory.",
    invoke_without_command=True,
)
app.command("model")(doctor_model)


@app.callback()
def doctor(
    ctx: typer.Context,
    as_json: bool = JsonOption,
    fix: bool = typer.Option(
        False, "--fix", help="First repair what is safe: private modes, leftover temp files, missing workspace files."
    ),
    agent: str = AgentOption,
    online: bool = typer.Option(
        False,
        "--online",
        help="Also ask each chat platform whether its token is valid (Discord: GET /users/@me; Feishu: a "
        "tenant_access_token, and in long-connection mode a connection URL; DingTalk: an access token; "
        "Slack: auth.test).",
    ),
) -> None:
    """Check the state dir, token, config, workspace, model endpoint, gateway, sessions, skills, hooks and memory.

    Exit code 0 when nothing failed (warnings allowed), 1 when a check failed."""
    if ctx.invoked_subcommand is not None:
        return
    import logging

    from claw.paths import Paths, check_agent_id

    check_agent_id(agent)
    # The checks report what they find; claw's own log warnings about the same files would say it twice.
    claw_log = logging.getLogger("claw")
    level = claw_log.level
    claw_log.setLevel(logging.ERROR)
    try:
        findings, fixed = _run(Paths.from_env(), agent, fix, online)
    finally:
        claw_log.setLevel(level)
    failed = any(f.status == "fail" for f in findings)
    if as_json:
        from claw.cli.common import print_json

        report: dict[str, object] = {"ok": not failed, "checks": [f.to_json() for f in findings]}
        if fix:
            report["fixed"] = fixed
        print_json(report)
    else:
        from claw.cli.doctor_view import print_findings

        print_findings(findings, fixed, fix)
    raise typer.Exit(1 if failed else 0)


def _run(paths: Paths, agent: str, fix: bool, online: bool = False) -> tuple[list[Finding], list[str]]:
    from functools import partial

    from claw.compose import CHANNEL_PLATFORMS
    from claw.doctor import agent as doctor_agent
    from claw.doctor import mcp as doctor_mcp
    from claw.doctor import repair as doctor_repair
    from claw.doctor import sandbox as doctor_sandbox
    from claw.doctor import services as doctor_services
    from claw.doctor import state as doctor_state
    from claw.doctor.workspace import check_workspace
    from claw.finding import SKIPPED, skipped
    from claw.workspace import workspace_dir

    config_finding, config = doctor_state.check_config(paths, agent)
    usable = config if config is not None and agent in config.agent_ids else None
    workspace = workspace_dir(paths, usable, agent) if usable is not None else None
    temp_roots = [*doctor_state.state_dirs(paths), *([workspace] if workspace else [])]
    fixed: list[str] = []
    if fix:
        fixed += doctor_repair.fix_modes(paths)
        fixed += doctor_repair.fix_temps(temp_roots)
        if usable is not None:
            fixed += doctor_repair.fix_workspace(paths, usable, agent)
        config_finding, config = doctor_state.check_config(paths, agent)  # its file's mode may have changed

    findings = [
        *_guarded("claw home", lambda: [doctor_state.check_home(paths)]),
        *_guarded("gateway token", lambda: [doctor_state.check_token(paths)]),
        config_finding,
        *_guarded("temp files", lambda: [doctor_state.check_temps(temp_roots)]),
    ]
    reason = SKIPPED if config is None else f"skipped: agent {agent!r} is not configured"

    def with_config(name: str, check: Callable[[Config, Path], list[Finding]]) -> list[Finding]:
        """A check that needs the agent's settings; skipped when they are not usable."""
        if usable is None or workspace is None:
            return [skipped(name, reason)]
        return _guarded(name, lambda: check(usable, workspace))

    findings += with_config("workspace", lambda c, w: [check_workspace(paths, c, agent)])
    findings += with_config("model", lambda c, w: doctor_services.check_models(c, agent))
    findings += _guarded("gateway", lambda: [doctor_services.check_gateway(paths)])
    findings += _guarded("gateway db", lambda: [doctor_state.check_database(paths)])
    findings += _guarded("sessions", lambda: [doctor_agent.check_sessions(paths, agent)])
    findings += with_config("skills", lambda c, w: [doctor_agent.check_skills(paths, c, agent, w)])
    findings += with_config("hooks", lambda c, w: [doctor_agent.check_hooks(paths, c, agent, w)])
    findings += with_config("memory index", lambda c, w: [doctor_agent.check_memory(paths, c, agent, w)])
    findings += with_config("sandbox", lambda c, w: [doctor_sandbox.check_sandbox(c, agent)])
    findings += with_config("mcp", lambda c, w: [doctor_mcp.check_mcp(paths, c)])
    if usable is not None:  # each platform's checks: one finding per configured account (none: nothing to say)
        for platform in CHANNEL_PLATFORMS:
            for check in (platform.check, platform.check_online if online else None):
                if check is not None:
                    findings += _guarded(platform.name, partial(check, usable))
    return findings, fixed


def _guarded(name: str, check: Callable[[], list[Finding]]) -> list[Finding]:
    """Run one check; a user-fixable error (or an unreadable file) becomes its failure, not a traceback."""
    from claw.errors import ClawError
    from claw.finding import fail

    try:
        return check()
    except ClawError as exc:
        return [fail(name, exc.message, "fix what the message names, then run `claw doctor` again")]
    except OSError as exc:
        return [fail(name, f"cannot check: {exc}", "fix what the message names, then run `claw doctor` again")]
