"""Starting a child: check the limits, create its session with its scope, dispatch its run on the
`subagent` lane, and hand it to a supervisor. Returns at once; the child runs on its own."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from claw.agent.run_scope import SCOPE_KEY
from claw.errors import ClawError
from claw.gateway.dispatch_result import NoRunStarted
from claw.subagents.policy import (
    DEPTH_KEY,
    PARENT_KEY,
    agent_refusal,
    child_scope,
    depth_of,
    skills_refusal,
    spawn_refusal,
)
from claw.subagents.record import SUBAGENT_KEY, SubagentRecord
from claw.subagents.supervisor import supervise
from claw.tools.base import ToolContext
from claw.vocab import run_event
from claw.vocab.msg_context import MsgContext
from claw.vocab.session_keys import subagent_session_key

if TYPE_CHECKING:
    from claw.subagents.host import SubagentsHost
    from claw.subagents.registry import SubagentRegistry

SUBAGENT_LANE = "subagent"


@dataclass(frozen=True, slots=True)
class SpawnRequest:
    """The arguments of one `sessions_spawn` call."""

    task: str
    agent_id: str | None = None
    model: str | None = None
    skills: tuple[str, ...] | None = None
    timeout_s: float | None = None
    label: str | None = None


async def spawn(host: SubagentsHost, registry: SubagentRegistry, ctx: ToolContext, req: SpawnRequest) -> SubagentRecord:
    """Start the child described by `req` for the run behind `ctx`; raises ClawError with the reason if not allowed."""
    settings = ctx.settings
    limits = settings.subagents
    caller = host.sessions(ctx.agent_id).get(ctx.session_key)
    depth = depth_of(caller.extra if caller else None)
    target = req.agent_id or ctx.agent_id
    refusal = (
        spawn_refusal(depth, settings)
        or agent_refusal(ctx.agent_id, target, limits.allow_agents, "agents.defaults.subagents.allowAgents")
        or (skills_refusal(req.skills, settings) if req.skills is not None else None)
    )
    if refusal:
        raise ClawError(f"sessions_spawn: {refusal}")
    host.config.agent(target)  # an unknown agent is a ConfigError naming the configured ones
    if len(registry.active_children(ctx.session_key)) >= limits.max_children:
        raise ClawError(
            f"sessions_spawn: this session already has {limits.max_children} subagents running "
            "(agents.defaults.subagents.maxChildren); wait for their results first"
        )
    parent = host.find_run(ctx.run_id)
    key = subagent_session_key(target)
    record = SubagentRecord(
        run_id="",
        session_key=key,
        agent_id=target,
        parent_run_id=ctx.run_id,
        parent_session_key=ctx.session_key,
        task=req.task,
        depth=depth + 1,
        timeout_s=req.timeout_s or limits.timeout_seconds,
        created_at=time.time(),
        label=req.label,
    )
    scope = child_scope(depth + 1, settings, req.skills if req.skills is not None else limits.skills)
    extra: dict[str, Any] = {
        SCOPE_KEY: scope.to_json(),
        PARENT_KEY: ctx.session_key,
        DEPTH_KEY: depth + 1,
        SUBAGENT_KEY: record.to_entry(),
    }

    def create() -> None:
        store = host.sessions(target)
        store.get_or_create(key, channel=ctx.channel)
        store.merge_extra(key, extra)

    await asyncio.to_thread(create)
    base = parent.ctx if parent is not None else MsgContext(body="")
    # The parent's channel and sender, so the child is gated like the parent; no peer, so nothing of the
    # child's own reply is taken for a message to the user (its result reaches them through the parent).
    message = MsgContext(
        body=req.task,
        channel=ctx.channel,
        sender_id=base.sender_id,
        sender_name=base.sender_name,
        agent_id=target,
        session_key=key,
        command_authorized=base.command_authorized,
    )
    try:
        child = await host.start_run(message, lane=SUBAGENT_LANE, model=req.model or limits.model)
    except ClawError as exc:  # the session stays, marked as never started
        reason = exc.message
        if isinstance(exc, NoRunStarted):
            reason = f"the task was read as a slash command ({exc.status}); put it in words"
        failed = replace(record, status="error", error=reason, announce="failed")
        await asyncio.to_thread(host.sessions(target).merge_extra, key, {SUBAGENT_KEY: failed.to_entry()})
        raise ClawError(f"sessions_spawn: {reason}") from None
    record = replace(record, run_id=child.id)
    registry.add(record)
    spawned = run_event.spawned(ctx.run_id, ctx.session_key, record.depth, record.label, record.task)
    host.publish_lifecycle(child, spawned)  # the console draws the tree from these (and from `subagents.list`)
    if parent is not None:
        host.publish_lifecycle(parent, run_event.subagent_spawned(record.run_id, key))
    host.track(asyncio.create_task(supervise(host, registry, record), name=f"subagent:{record.run_id}"))
    return record
