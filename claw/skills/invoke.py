"""Running a skill on request: `/skill <name> [args]`, and `/<name>` when no command has that name.

A skill run is an ordinary run whose message tells the model to read the skill's
SKILL.md and follow it with the user's input; the transcript keeps what the user typed.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from claw.errors import ClawError, UsageError
from claw.gateway.commands import CommandCall, NotACommand, RunInstead
from claw.skills.catalog import SkillReport, SkillStatus, build_report
from claw.skills.skill import Skill
from claw.vocab.command_syntax import parse_command

if TYPE_CHECKING:
    from claw.skills.host import SkillsHost


def invocation_message(skill: Skill, args: str) -> str:
    """What the model receives for `/skill <name> [args]`."""
    given = f"The user's input for it:\n{args}" if args.strip() else "The user gave no further input."
    return (
        f'The user asked you to run the skill "{skill.name}". Read its instructions at {skill.file} '
        f"with the read tool, then follow them.\n{given}"
    )


async def _report(host: SkillsHost, call: CommandCall) -> SkillReport:
    workspace = host.workspace(call.agent_id)
    return await asyncio.to_thread(
        build_report, host.paths, host.config, call.agent_id, workspace, channel=call.channel, sender_id=call.sender_id
    )


def _invocable(report: SkillReport) -> list[SkillStatus]:
    return [s for s in report.statuses if s.eligible and s.skill.user_invocable]


def _find(report: SkillReport, name: str) -> SkillStatus | None:
    wanted = name.lower()
    exact = report.status(name)
    if exact is not None:
        return exact
    return next((s for s in report.statuses if wanted in (s.skill.name.lower(), s.skill.command_name)), None)


async def skill_command(host: SkillsHost, call: CommandCall) -> str | RunInstead:
    """`/skill` lists the skills you can run; `/skill <name> [args]` runs one."""
    name, _, args = call.args.partition(" ")
    report = await _report(host, call)
    if not name:
        runnable = _invocable(report)
        if not runnable:
            return "No skills can be run here (see `claw skills check`)."
        lines = ["Skills (run one with /skill <name> [input]):"]
        lines += [f"  {s.skill.name:<20} {_shortened(s.skill.description)}" for s in runnable]
        return "\n".join(lines)
    found = _find(report, name)
    if found is None:
        raise UsageError(f"Unknown skill {name!r}. Send /skill to list the skills you can run.")
    if not found.skill.user_invocable:
        raise ClawError(f"Skill {found.skill.name} cannot be run by hand (its SKILL.md says user-invocable: false).")
    if not found.eligible:
        raise ClawError(f"Skill {found.skill.name} is not available: {found.reason}")
    return RunInstead(invocation_message(found.skill, args.strip()))


async def skill_by_name(host: SkillsHost, call: CommandCall) -> RunInstead | NotACommand:
    """`/<name> [args]` for a runnable skill; for anything else, the names that would run one (for the
    gateway's "did you mean")."""
    report = await _report(host, call)
    runnable = _invocable(report)
    for status in runnable:
        if call.name in (status.skill.name.lower(), status.skill.command_name):
            return RunInstead(invocation_message(status.skill, call.args))
    return NotACommand(tuple(name for status in runnable for name in _slash_names(status.skill)))


def _slash_names(skill: Skill) -> tuple[str, ...]:
    """What `/<name>` runs `skill`: its `command_name`, and its own name when that is a command word too."""
    own = skill.name.lower()
    return (skill.command_name, own) if parse_command(f"/{own}") == (own, "") else (skill.command_name,)


def _shortened(text: str, limit: int = 100) -> str:
    """At most `limit` characters, cut at a word's end and marked with "…" when anything was left out."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    return (head.rsplit(" ", 1)[0] if " " in head else head).rstrip(" ,;:.") + "…"
