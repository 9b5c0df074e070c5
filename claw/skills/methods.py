"""RPC methods `skills.list`, `skills.info` and `skills.check` (registered when the extension loads)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from claw.errors import NotFoundError, UsageError
from claw.gateway.gateway import Gateway
from claw.skills.audit import scripts_in
from claw.skills.catalog import SkillReport, build_report
from claw.skills.skill import Skill

if TYPE_CHECKING:
    from claw.gateway.capability import Method

MAX_LISTED_FILES = 50


async def _report(gw: Gateway, params: dict[str, Any]) -> SkillReport:
    agent_id = params.get("agentId") or "main"
    channel = params.get("channel") or params.get("_channel") or "cli"
    sender = params.get("senderId") or "local"
    workspace = gw.workspace(agent_id)
    return await asyncio.to_thread(
        build_report, gw.paths, gw.config, agent_id, workspace, channel=str(channel), sender_id=str(sender)
    )


async def skills_list(gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows `name, description, source, eligible, reason, path, status`: eligible skills, or with `all` every one."""
    report = await _report(gw, params)
    return report.rows(include_all=bool(params.get("all")))


async def skills_check(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Every skill with its status, and counts per status."""
    rows = (await _report(gw, params)).rows(include_all=True)
    counts: dict[str, int] = {"ok": 0, "ineligible": 0, "shadowed": 0, "invalid": 0}
    for row in rows:
        counts[row["status"]] += 1
    return {"counts": counts, "skills": rows}


async def skills_info(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """One skill in detail: its row, requirements, flags, files, and the copies it shadows."""
    name = params.get("name")
    if not isinstance(name, str) or not name:
        raise UsageError("missing or invalid parameter 'name' (a skill name)")
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
