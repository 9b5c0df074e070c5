"""RPC methods `skills.list`, `skills.info` and `skills.check` (registered when the extension loads)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from claw.errors import NotFoundError
from claw.gateway.gateway import Gateway
from claw.gateway.rpc_params import AgentParams, Flag, NonEmptyStr, OptionalStr, takes
from claw.skills.audit import scripts_in
from claw.skills.catalog import SkillReport, build_report
from claw.skills.skill import Skill

if TYPE_CHECKING:
    from claw.gateway.capability import Method

MAX_LISTED_FILES = 50


class SkillsParams(AgentParams):
    """Whose view of the skills: the agent's, as seen from `channel` (default: the caller's) by `senderId`."""

    channel: OptionalStr = None
    sender_id: OptionalStr = None


class SkillsListParams(SkillsParams):
    show_all: Flag = Field(False, alias="all")


class SkillInfoParams(SkillsParams):
    name: NonEmptyStr = Field(description="a skill name")


async def _report(gw: Gateway, params: SkillsParams) -> SkillReport:
    agent_id = params.agent_id
    channel = params.channel or params.caller_channel
    sender = params.sender_id or "local"
    workspace = gw.workspace(agent_id)
    return await asyncio.to_thread(
        build_report, gw.paths, gw.config, agent_id, workspace, channel=channel, sender_id=sender
    )


@takes(SkillsListParams)
async def skills_list(gw: Gateway, params: SkillsListParams) -> list[dict[str, Any]]:
    """Rows `name, description, source, eligible, reason, path, status`: eligible skills, or with `all` every one."""
    report = await _report(gw, params)
    return report.rows(include_all=params.show_all)


@takes(SkillsParams)
async def skills_check(gw: Gateway, params: SkillsParams) -> dict[str, Any]:
    """Every skill with its status, and counts per status."""
    rows = (await _report(gw, params)).rows(include_all=True)
    counts: dict[str, int] = {"ok": 0, "ineligible": 0, "shadowed": 0, "invalid": 0}
    for row in rows:
        counts[row["status"]] += 1
    return {"counts": counts, "skills": rows}


@takes(SkillInfoParams)
async def skills_info(gw: Gateway, params: SkillInfoParams) -> dict[str, Any]:
    """One skill in detail: its row, requirements, flags, files, and the copies it shadows."""
    name = params.name
    report = await _report(gw, params)
    rows = [r for r in report.rows(include_all=True) if r["name"] == name]
    if not rows:
        raise NotFoundError(f"no skill named {name!r} (see `claw skills ls --all`)")
    status = report.status(name)
    if status is None:  # only invalid copies exist
        return {**rows[0], "copies": rows[1:]}
    skill = status.skill
    return {
        **rows[0],
        **await asyncio.to_thread(_details, skill),
        "copies": rows[1:],
    }


def _details(skill: Skill) -> dict[str, Any]:
    files = sorted(str(p.relative_to(skill.directory)) for p in skill.directory.rglob("*") if p.is_file())
    req = skill.requires
    return {
        "directory": str(skill.directory),
        "requires": {"bins": req.bins, "anyBins": req.any_bins, "env": req.env, "config": req.config},
        "os": skill.os,
        "always": skill.always,
        "userInvocable": skill.user_invocable,
        "disableModelInvocation": skill.disable_model_invocation,
        "command": f"/{skill.command_name}",
        "primaryEnv": skill.primary_env,
        "homepage": skill.homepage,
        "files": files[:MAX_LISTED_FILES],
        "scripts": scripts_in(skill.directory),
    }


SKILL_METHODS: Mapping[str, Method] = {
    "skills.list": skills_list,
    "skills.check": skills_check,
    "skills.info": skills_info,
}
