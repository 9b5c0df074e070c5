"""The gateway's RPC methods, by wire name. `LocalClient` and the WebSocket server both call these."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict
from typing import Any

from claw import __version__
from claw.errors import NotFoundError, UsageError
from claw.gateway.gateway import Gateway
from claw.gateway.msg_context import MsgContext
from claw.gateway.session_keys import agent_of, normalize_session_key
from claw.store.sessions import SessionEntry
from claw.workspace import resolve_name

Method = Callable[[Gateway, dict[str, Any]], Awaitable[Any]]
METHODS: dict[str, Method] = {}


def method(name: str) -> Callable[[Method], Method]:
    def register(fn: Method) -> Method:
        METHODS[name] = fn
        return fn

    return register


async def call_method(gw: Gateway, name: str, params: dict[str, Any], *, channel: str = "cli") -> Any:
    fn = METHODS.get(name)
    if fn is None:
        raise UsageError(f"unknown method {name!r}")
    params = {**params, "_channel": channel}
    return await fn(gw, params)


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


@method("health")
async def health(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True}


@method("status")
async def status(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": __version__,
        "uptimeSeconds": round(time.time() - gw.started_at, 1),
        "agents": gw.config.agent_ids,
        "activeRuns": len(gw.runs.active()),
        "sessions": sum(len(gw.sessions(a).list()) for a in gw.config.agent_ids),
    }


@method("agent")
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


@method("agent.wait")
async def agent_wait(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    run = gw.runs.get(_str(params, "runId"))
    if run is None:
        raise NotFoundError(f"unknown run {params['runId']}")
    outcome = await run.wait(_number(params, "timeoutMs", 30_000) / 1000)
    return {"status": "timeout"} if outcome is None else outcome.to_wire()


@method("agent.abort")
async def agent_abort(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    if params.get("runId"):
        return {"aborted": int(gw.abort(params["runId"]))}
    _, key = _session_key(params)
    return {"aborted": gw.abort_session(key)}


@method("chat.history")
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


@method("sessions.list")
async def sessions_list(gw: Gateway, params: dict[str, Any]) -> list[dict[str, Any]]:
    agent_id = _agent_id(params)
    return [session_row(e) for e in gw.sessions(agent_id).list()]


@method("sessions.get")
async def sessions_get(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    agent_id, key = _session_key(params)
    entry = gw.sessions(agent_id).get(key)
    if entry is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    return {**session_row(entry), "entry": asdict(entry)}


@method("sessions.reset")
async def sessions_reset(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    agent_id, key = _session_key(params)
    if gw.sessions(agent_id).get(key) is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    gw.abort_session(key)
    return session_row(await gw.reset_session(key))


@method("sessions.delete")
async def sessions_delete(gw: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    agent_id, key = _session_key(params)
    gw.abort_session(key)
    if not await asyncio.to_thread(gw.sessions(agent_id).delete, key):
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    return {"deleted": key}


@method("workspace.read")
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


@method("workspace.write")
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


@method("sessions.patch")
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


@method("agents.get")
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


@method("commands.list")
async def commands_list(gw: Gateway, params: dict[str, Any]) -> list[dict[str, str]]:
    """The slash commands the gateway handles, for completion in clients."""
    from claw.gateway.commands import COMMANDS

    return [{"name": name, "description": description} for name, (description, _) in sorted(COMMANDS.items())]
