"""The core's RPC methods, by wire name (`CORE_METHODS`). `Gateway.call_method` serves them and every
capability's; `LocalClient` and the WebSocket server both go through it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from claw import __version__
from claw.errors import NotFoundError, UsageError
from claw.gateway.capability import Method
from claw.gateway.msg_context import MsgContext
from claw.gateway.session_keys import agent_of, normalize_session_key
from claw.store.sessions import SessionEntry
from claw.tools.exec_approvals import DECISIONS
from claw.workspace import resolve_name

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway


def _str(params: dict[str, Any], key: str, default: str | None = None) -> str:
    value = params.get(key, default)
    if not isinstance(value, str) or not value:
        raise UsageError(f"missing or invalid parameter {key!r} (a non-empty string)")
    return value


def _opt_str(params: dict[str, Any], key: str, default: str | None = None) -> str | None:
    value = params.get(key)
    if value is None or value == "":
        return default
    if not isinstance(value, str):
        raise UsageError(f"invalid parameter {key!r}: expected a string, got {type(value).__name__}")
    return value


def _number(params: dict[str, Any], key: str, default: float) -> float:
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UsageError(f"invalid parameter {key!r}: expected a number, got {type(value).__name__}")
    return float(value)


def _agent_id(params: dict[str, Any]) -> str:
    return _opt_str(params, "agentId", "main") or "main"


def _session_key(params: dict[str, Any]) -> tuple[str, str]:
    agent_id = _agent_id(params)
    key = normalize_session_key(_opt_str(params, "sessionKey", "main") or "main", agent_id)
    return agent_of(key), key


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
        "subagentStatus": child.get("status") if isinstance(child := entry.extra.get("subagent"), dict) else None,
    }


async def health(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True}


async def status(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": __version__,
        "uptimeSeconds": round(time.time() - gw.started_at, 1),
        "agents": gw.config.agent_ids,
        "activeRuns": len(gw.runs.active()),
        "sessions": sum(len(gw.sessions(a).list()) for a in gw.config.agent_ids),
    }


async def agent(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    message = _str(params, "message")
    agent_id = _agent_id(params)
    ctx = MsgContext(
        body=message,
        channel=params["_channel"],
        agent_id=agent_id,
        session_key=_opt_str(params, "sessionKey"),
        command_authorized=True,  # only the operator's authenticated clients reach the `agent` method
    )
    idempotency_key, model = _opt_str(params, "idempotencyKey"), _opt_str(params, "model")
    result = await gw.dispatch(ctx, idempotency_key=idempotency_key, model=model)
    return result.to_wire()


async def agent_wait(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    run = gw.runs.get(_str(params, "runId"))
    if run is None:
        raise NotFoundError(f"unknown run {params['runId']}")
    outcome = await run.wait(_number(params, "timeoutMs", 30_000) / 1000)
    return {"status": "timeout"} if outcome is None else outcome.to_wire()


async def agent_abort(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    if params.get("runId"):
        return {"aborted": int(gw.abort(params["runId"]))}
    _, key = _session_key(params)
    return {"aborted": gw.abort_session(key)}


async def chat_history(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    agent_id, key = _session_key(params)
    limit = int(_number(params, "limit", 200))
    store = gw.sessions(agent_id)
    entry = store.get(key)
    if entry is None:
        return {"sessionKey": key, "sessionId": None, "messages": []}
    entries = await asyncio.to_thread(store.transcript(entry).read)
    return {
        "sessionKey": key,
        "sessionId": entry.session_id,
        "messages": entries[-limit:] if limit > 0 else entries,
    }


async def sessions_list(gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    agent_id = _agent_id(params)
    return [session_row(e) for e in gw.sessions(agent_id).list()]


async def sessions_get(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    agent_id, key = _session_key(params)
    entry = gw.sessions(agent_id).get(key)
    if entry is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    return {**session_row(entry), "entry": asdict(entry)}


async def sessions_reset(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    agent_id, key = _session_key(params)
    if gw.sessions(agent_id).get(key) is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    gw.abort_session(key)
    return session_row(await gw.reset_session(key))


async def sessions_delete(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    agent_id, key = _session_key(params)
    gw.abort_session(key)
    if not await asyncio.to_thread(gw.sessions(agent_id).delete, key):
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    return {"deleted": key}


async def workspace_read(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    agent_id = _agent_id(params)
    name = resolve_name(_str(params, "name"))
    path = gw.workspace(agent_id) / name
    text = await asyncio.to_thread(path.read_text, encoding="utf-8") if path.exists() else ""
    return {
        "name": name,
        "path": str(path),
        "content": text,
        "cap": gw.config.agent(agent_id).bootstrap_max_chars,
    }


async def workspace_write(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    from claw.store.atomic import atomic_write_text

    agent_id = _agent_id(params)
    name = resolve_name(_str(params, "name"))
    content = params.get("content")
    if not isinstance(content, str):
        raise UsageError("missing or invalid parameter 'content' (a string)")
    path = gw.workspace(agent_id) / name
    await asyncio.to_thread(atomic_write_text, path, content, None)
    return {"name": name, "path": str(path), "chars": len(content)}


async def sessions_patch(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Change a session's settings (now: `model`, a model ref, or null for the agent's own); creates the
    session if it has no turns yet."""
    agent_id, key = _session_key(params)
    store = gw.sessions(agent_id)
    changes: dict[str, Any] = {}
    if "model" in params:
        model = params["model"]
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise UsageError("invalid parameter 'model' (a model ref such as openai/gpt-4o-mini, or null)")
        changes["model_override"] = model.strip() if model else None

    def patch() -> SessionEntry:
        store.get_or_create(key, channel=params["_channel"])
        return store.update(key, **changes)

    return session_row(await asyncio.to_thread(patch))


async def agents_get(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """What a client needs to know about an agent: its model chain and context window."""
    agent_id = _agent_id(params)
    settings = gw.config.agent(agent_id)
    return {
        "agentId": agent_id,
        "models": settings.model.chain(),
        "contextTokens": settings.context_tokens,
        "bootstrapMaxChars": settings.bootstrap_max_chars,
        "workspace": str(gw.workspace(agent_id)),
    }


async def commands_list(gw: Gateway, params: dict[str, Any]) -> list[dict[str, str]]:
    """The slash commands the gateway handles, for completion in clients."""
    return [{"name": c.name, "description": c.description} for c in gw.commands.listing()]


async def agent_follow(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Attach to an existing run. In-process this only checks the run exists; over WebSocket the
    server then streams the run's events (replayed from the first) and a final `res`, as after `agent`."""
    run_id = _str(params, "runId")
    run = gw.runs.get(run_id)
    if run is None:
        raise NotFoundError(f"unknown run {run_id}")
    status = "finished" if run.finished else "accepted"
    return {"status": status, "runId": run.id, "agentId": run.agent_id, "sessionKey": run.session_key}


async def approval_list(gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
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


async def approval_resolve(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    """Answer one exec question: `{id, decision}` with `allow-once`, `allow-always` or `deny`."""
    request_id = _str(params, "id")
    decision = _str(params, "decision")
    if decision not in DECISIONS:
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
    "workspace.read": workspace_read,
    "workspace.write": workspace_write,
    "agents.get": agents_get,
    "commands.list": commands_list,
    "exec.approval.list": approval_list,
    "exec.approval.resolve": approval_resolve,
}
"""The core's RPC methods; `Gateway.use` adds each capability's after these."""
