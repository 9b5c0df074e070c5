"""The core's RPC methods, by wire name (`CORE_METHODS`). `Gateway.call_method` serves them and every
capability's; `LocalClient` and the WebSocket server both go through it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from claw import __version__
from claw.errors import NotFoundError, UsageError
from claw.gateway.capability import Method
from claw.gateway.msg_context import MsgContext
from claw.gateway.rpc_params import (
    AgentParams,
    Milliseconds,
    NonEmptyStr,
    NoParams,
    Number,
    OptionalAgentSessionKey,
    OptionalStr,
    Params,
    SessionParams,
    takes,
)
from claw.gateway.session_methods import SESSION_METHODS
from claw.store.sessions import SessionEntry
from claw.tools.exec_approvals import DECISIONS
from claw.workspace import resolve_name

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway


class AgentTurnParams(AgentParams):
    """`agent`: run `message` as a turn; the session is `sessionKey` (under `agentId`) or the one the
    message's channel maps to."""

    message: NonEmptyStr
    session_key: OptionalAgentSessionKey = None
    idempotency_key: OptionalStr = None
    model: OptionalStr = None


class RunParams(Params):
    run_id: NonEmptyStr


class WaitParams(RunParams):
    timeout_ms: Milliseconds = 30_000


class AbortParams(SessionParams):
    """`agent.abort`: the run `runId`, or else every run of the session."""

    run_id: OptionalStr = None


class HistoryParams(SessionParams):
    limit: Number = Field(200, description="a number; 0 for the whole history")


class WorkspaceFileParams(AgentParams):
    name: NonEmptyStr = Field(description="a workspace file name, e.g. USER.md or user")


class WorkspaceWriteParams(WorkspaceFileParams):
    content: str = Field(description="a string")


class SessionPatchParams(SessionParams):
    """`sessions.patch`: only the fields given change; `model: null` goes back to the agent's own."""

    model: str | None = Field(None, description="a model ref such as openai/gpt-4o-mini, or null")

    @field_validator("model")
    @classmethod
    def _model_ref(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("a model ref such as openai/gpt-4o-mini, or null; got an empty string")
        return value.strip() if value else None


class ApprovalAnswerParams(Params):
    id: NonEmptyStr = Field(description="a pending approval's id (see exec.approval.list)")
    decision: NonEmptyStr = Field(description=f"one of {', '.join(sorted(DECISIONS))}")


def session_row(entry: SessionEntry) -> dict[str, Any]:
    return {
        "sessionKey": entry.session_key,
        "sessionId": entry.session_id,
        "messages": entry.message_count,
        "updatedAt": entry.updated_at,
        "createdAt": entry.created_at,
        "inputTokens": entry.input_tokens,
        "outputTokens": entry.output_tokens,
        "model": entry.model_override,
        "preview": entry.last_preview,
        "channel": entry.channel,
        "spawnedBy": entry.extra.get("spawnedBy"),  # subagent sessions: the parent session's key
        "forkedFrom": entry.extra.get("forkedFrom"),  # forks: the session copied, and at which message
        "forkedAt": entry.extra.get("forkedAt"),
        "subagentStatus": child.get("status") if isinstance(child := entry.extra.get("subagent"), dict) else None,
    }


@takes(NoParams)
async def health(gw: Gateway, params: NoParams) -> dict[str, Any]:
    return {"ok": True}


@takes(NoParams)
async def status(gw: Gateway, params: NoParams) -> dict[str, Any]:
    return {
        "version": __version__,
        "uptimeSeconds": round(time.time() - gw.started_at, 1),
        "agents": gw.config.agent_ids,
        "activeRuns": len(gw.runs.active()),
        "sessions": sum(len(gw.sessions(a).list()) for a in gw.config.agent_ids),
    }


@takes(AgentTurnParams)
async def agent(gw: Gateway, params: AgentTurnParams) -> dict[str, Any]:
    ctx = MsgContext(
        body=params.message,
        channel=params.caller_channel,
        agent_id=params.agent_id,
        session_key=params.session_key,
        command_authorized=True,  # only the operator's authenticated clients reach the `agent` method
    )
    result = await gw.dispatch(ctx, idempotency_key=params.idempotency_key, model=params.model)
    return result.to_wire()


@takes(WaitParams)
async def agent_wait(gw: Gateway, params: WaitParams) -> dict[str, Any]:
    run = gw.runs.get(params.run_id)
    if run is None:
        raise NotFoundError(f"unknown run {params.run_id}")
    outcome = await run.wait(params.timeout_ms / 1000)
    return {"status": "timeout"} if outcome is None else outcome.to_wire(run.id, run.session_id)


@takes(AbortParams)
async def agent_abort(gw: Gateway, params: AbortParams) -> dict[str, Any]:
    if params.run_id:
        return {"aborted": int(gw.abort(params.run_id))}
    return {"aborted": gw.abort_session(params.session_key)}


@takes(HistoryParams)
async def chat_history(gw: Gateway, params: HistoryParams) -> dict[str, Any]:
    key, limit = params.session_key, int(params.limit)
    store = gw.sessions(params.session_agent)
    entry = store.get(key)
    if entry is None:
        return {"sessionKey": key, "sessionId": None, "messages": []}
    entries = await asyncio.to_thread(store.transcript(entry).read)
    return {
        "sessionKey": key,
        "sessionId": entry.session_id,
        "messages": entries[-limit:] if limit > 0 else entries,
    }


@takes(AgentParams)
async def sessions_list(gw: Gateway, params: AgentParams) -> list[dict[str, Any]]:
    return [session_row(e) for e in gw.sessions(params.agent_id).list()]


@takes(SessionParams)
async def sessions_get(gw: Gateway, params: SessionParams) -> dict[str, Any]:
    key = params.session_key
    entry = gw.sessions(params.session_agent).get(key)
    if entry is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    return {**session_row(entry), "entry": asdict(entry)}


@takes(SessionParams)
async def sessions_reset(gw: Gateway, params: SessionParams) -> dict[str, Any]:
    key = params.session_key
    if gw.sessions(params.session_agent).get(key) is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    gw.abort_session(key)
    return session_row(await gw.reset_session(key))


@takes(SessionParams)
async def sessions_delete(gw: Gateway, params: SessionParams) -> dict[str, Any]:
    key = params.session_key
    gw.abort_session(key)
    if not await asyncio.to_thread(gw.sessions(params.session_agent).delete, key):
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    return {"deleted": key}


@takes(WorkspaceFileParams)
async def workspace_read(gw: Gateway, params: WorkspaceFileParams) -> dict[str, Any]:
    agent_id = params.agent_id
    name = resolve_name(params.name)
    path = gw.workspace(agent_id) / name
    text = await asyncio.to_thread(path.read_text, encoding="utf-8") if path.exists() else ""
    return {
        "name": name,
        "path": str(path),
        "content": text,
        "cap": gw.config.agent(agent_id).bootstrap_max_chars,
    }


@takes(WorkspaceWriteParams)
async def workspace_write(gw: Gateway, params: WorkspaceWriteParams) -> dict[str, Any]:
    from claw.store.atomic import atomic_write_text

    name, content = resolve_name(params.name), params.content
    path = gw.workspace(params.agent_id) / name
    await asyncio.to_thread(atomic_write_text, path, content, None)
    return {"name": name, "path": str(path), "chars": len(content)}


@takes(SessionPatchParams)
async def sessions_patch(gw: Gateway, params: SessionPatchParams) -> dict[str, Any]:
    """Change a session's settings (now: `model`, a model ref, or null for the agent's own); creates the
    session if it has no turns yet."""
    key = params.session_key
    store = gw.sessions(params.session_agent)
    changes: dict[str, Any] = {}
    if "model" in params.model_fields_set:  # absent: unchanged; null: back to the agent's own
        changes["model_override"] = params.model

    def patch() -> SessionEntry:
        store.get_or_create(key, channel=params.caller_channel)
        return store.update(key, **changes)

    return session_row(await asyncio.to_thread(patch))


@takes(AgentParams)
async def agents_get(gw: Gateway, params: AgentParams) -> dict[str, Any]:
    """What a client needs to know about an agent: its model chain and context window."""
    agent_id = params.agent_id
    settings = gw.config.agent(agent_id)
    return {
        "agentId": agent_id,
        "models": settings.model.chain(),
        "contextTokens": settings.context_tokens,
        "bootstrapMaxChars": settings.bootstrap_max_chars,
        "workspace": str(gw.workspace(agent_id)),
    }


@takes(NoParams)
async def commands_list(gw: Gateway, params: NoParams) -> list[dict[str, str]]:
    """The slash commands the gateway handles, for completion in clients."""
    return [{"name": c.name, "description": c.description} for c in gw.commands.listing()]


@takes(RunParams)
async def agent_follow(gw: Gateway, params: RunParams) -> dict[str, Any]:
    """Attach to an existing run. In-process this only checks the run exists; over WebSocket the
    server then streams the run's events (replayed from the first) and a final `res`, as after `agent`."""
    run_id = params.run_id
    run = gw.runs.get(run_id)
    if run is None:
        raise NotFoundError(f"unknown run {run_id}")
    status = "finished" if run.finished else "accepted"
    return {"status": status, "runId": run.id, "agentId": run.agent_id, "sessionKey": run.session_key}


@takes(NoParams)
async def approval_list(gw: Gateway, params: NoParams) -> list[dict[str, Any]]:
    """The exec questions waiting for an answer."""
    return [
        {
            "id": r.id,
            "agentId": r.agent_id,
            "sessionKey": r.session_key,
            "command": r.command,
            "cwd": r.cwd,
            "reason": r.reason,
        }
        for r in gw.approvals.pending()
    ]


@takes(ApprovalAnswerParams)
async def approval_resolve(gw: Gateway, params: ApprovalAnswerParams) -> dict[str, Any]:
    """Answer one exec question: `{id, decision}` with `allow-once`, `allow-always` or `deny`."""
    request_id, decision = params.id, params.decision
    if decision not in DECISIONS:  # here rather than in the model: this is the line clients already get
        raise UsageError(f"invalid decision {decision!r}: use one of {', '.join(sorted(DECISIONS))}")
    if not gw.approvals.resolve(request_id, decision):  # type: ignore[arg-type]
        raise NotFoundError(f"no pending approval {request_id} (already answered or expired)")
    return {"id": request_id, "decision": decision}


CORE_METHODS: Mapping[str, Method] = {
    "health": health,
    "status": status,
    "agent": agent,
    "agent.wait": agent_wait,
    "agent.abort": agent_abort,
    "agent.follow": agent_follow,
    "chat.history": chat_history,
    "sessions.list": sessions_list,
    "sessions.get": sessions_get,
    "sessions.reset": sessions_reset,
    "sessions.delete": sessions_delete,
    "sessions.patch": sessions_patch,
    **SESSION_METHODS,  # search, reindex, fork, undo, export
    "workspace.read": workspace_read,
    "workspace.write": workspace_write,
    "agents.get": agents_get,
    "commands.list": commands_list,
    "exec.approval.list": approval_list,
    "exec.approval.resolve": approval_resolve,
}
"""The core's RPC methods; `Gateway.use` adds each capability's after these."""
