"""RPC methods `skills.list`, `skills.info` and `skills.check`.

Each is bound to the capability's `SkillsHost` (the settings, the workspaces), so it reaches no more of
the gateway than the capability does; the gateway that `Gateway.call_method` hands every method first is
not used.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import Field

from claw.api.method import RpcMethod, table
from claw.api.params import AgentParams, ClosedParams, Flag, NonEmptyStr, OptionalStr, takes
from claw.errors import NotFoundError
from claw.protocol.scopes import ADMIN, READ
from claw.skills.audit import scripts_in
from claw.skills.catalog import SkillReport, build_report
from claw.skills.skill import Skill

if TYPE_CHECKING:
    from claw.skills.host import SkillsHost

MAX_LISTED_FILES = 50


class SkillsParams(AgentParams):
    """Whose view of the skills: the agent's, as seen from `channel` (default: the caller's) by `senderId`."""

    channel: OptionalStr = None
    sender_id: OptionalStr = None


class SkillsListParams(SkillsParams):
    show_all: Flag = Field(False, alias="all")


class SkillInfoParams(SkillsParams):
    name: NonEmptyStr = Field(description="a skill name")


async def _report(host: SkillsHost, params: SkillsParams) -> SkillReport:
    agent_id = params.agent_id
    channel = params.channel or params.caller_channel
    sender = params.sender_id or "local"
    workspace = host.workspace(agent_id)
    return await asyncio.to_thread(
        build_report, host.paths, host.config, agent_id, workspace, channel=channel, sender_id=sender
    )


@takes(SkillsListParams)
async def skills_list(host: SkillsHost, _gateway: object, params: SkillsListParams) -> list[dict[str, Any]]:
    """Rows `name, description, source, eligible, reason, path, status`: eligible skills, or with `all` every one."""
    report = await _report(host, params)
    return report.rows(include_all=params.show_all)


@takes(SkillsParams)
async def skills_check(host: SkillsHost, _gateway: object, params: SkillsParams) -> dict[str, Any]:
    """Every skill with its status, and counts per status."""
    rows = (await _report(host, params)).rows(include_all=True)
    counts: dict[str, int] = {"ok": 0, "ineligible": 0, "shadowed": 0, "invalid": 0}
    for row in rows:
        counts[row["status"]] += 1
    return {"counts": counts, "skills": rows}


@takes(SkillInfoParams)
async def skills_info(host: SkillsHost, _gateway: object, params: SkillInfoParams) -> dict[str, Any]:
    """One skill in detail: its row, requirements, flags, files, and the copies it shadows."""
    name = params.name
    report = await _report(host, params)
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


class SkillsStatusParams(ClosedParams):
    """OpenClaw's `skills.status`: one agent's view (default `main`)."""

    agent_id: str | None = None


@takes(SkillsStatusParams)
async def skills_status(host: SkillsHost, _gateway: object, params: SkillsStatusParams) -> dict[str, Any]:
    """OpenClaw's skill status report (`openclaw skills list/check`): every skill claw found for the agent,
    eligible or not, with what it is missing (binaries, any-of binaries, environment variables)."""
    agent_id = params.agent_id or "main"
    report = await _report(host, SkillsParams.model_validate({"agentId": agent_id}))
    workspace = host.workspace(agent_id)
    skills = []
    for status in report.statuses:
        skill, req = status.skill, status.skill.requires
        missing = {
            "bins": [b for b in req.bins if shutil.which(b) is None],
            "anyBins": [] if not req.any_bins or any(shutil.which(b) for b in req.any_bins) else list(req.any_bins),
            "env": [e for e in req.env if not os.environ.get(e)],
            "config": [],
            "os": [] if not skill.os or sys.platform in skill.os else list(skill.os),
        }
        skills.append({
            "name": skill.name,
            "skillKey": skill.name,
            "description": skill.description,
            "source": skill.source,
            "bundled": skill.source == "bundled",
            "filePath": str(skill.file),
            "baseDir": str(skill.directory),
            "eligible": status.eligible,
            "disabled": False,
            "blockedByAllowlist": False,
            "blockedByAgentFilter": False,
            "modelVisible": not skill.disable_model_invocation,
            "userInvocable": skill.user_invocable,
            "commandVisible": skill.user_invocable,
            "primaryEnv": skill.primary_env,
            "homepage": skill.homepage,
            "requirements": {"bins": req.bins, "anyBins": req.any_bins, "env": req.env, "config": req.config,
                             "os": skill.os or []},  # fmt: skip
            "missing": missing,
            "install": [],
        })  # fmt: skip
    return {"agentId": agent_id, "workspaceDir": str(workspace), "managedSkillsDir": str(host.paths.skills_dir),
            "skills": skills}  # fmt: skip


def skill_methods(host: SkillsHost) -> dict[str, RpcMethod]:
    """These methods by wire name, bound to `host`."""
    return table(
        RpcMethod("skills.list", READ, partial(skills_list, host)),
        RpcMethod("skills.check", ADMIN, partial(skills_check, host)),
        RpcMethod("skills.info", ADMIN, partial(skills_info, host)),
        RpcMethod("skills.status", READ, partial(skills_status, host)),
    )
