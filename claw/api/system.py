"""The gateway-wide RPC methods OpenClaw's clients ask first, in OpenClaw's protocol-4 shapes: `health`,
`status`, `agents.list`, `models.list`, `config.get`, `system-presence`, `last-heartbeat`, and the lists of
features claw does not have (`question.list`, `taskSuggestions.list`), part of the core's methods
(`CORE_METHODS`). (`plugin.approval.list` is the network connection's own: it lists claw's exec questions
to the clients that answer only plugin approvals; claw/server/ws_approvals.py.)

Every answer is built from what this gateway really has. Where OpenClaw has a feature claw lacks
(heartbeats, agent questions, task suggestions, presence beacons) the answer says so in
OpenClaw's own terms (an empty list, a heartbeat that is off, `null` for the last heartbeat), never a
made-up entry, so a client shows "none" rather than failing on a missing method.
"""

from __future__ import annotations

import asyncio
import hashlib
import platform
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from claw import __version__
from claw.api.method import RpcMethod, table
from claw.api.params import NoParams, OptionalStr, Params, takes
from claw.api.session_rows import epoch_ms, now_ms, session_row, split_model_ref
from claw.protocol.scopes import QUESTIONS, READ

if TYPE_CHECKING:
    from claw.api.host import ApiHost
    from claw.store.session_entry import SessionEntry

RECENT_SESSIONS = 10
"""How many of the newest sessions `health` and `status` list (as OpenClaw's do)."""
HEARTBEAT_OFF = {"enabled": False, "every": "off", "everyMs": None}
"""claw has no heartbeat runs (its automations do scheduled work): every agent's heartbeat is off."""


class AgentFilterParams(Params):
    """`taskSuggestions.list`: optionally one session's or one agent's."""

    session_key: OptionalStr = None
    agent_id: OptionalStr = None


def _entries(gw: ApiHost, agent_id: str) -> list[SessionEntry]:
    return sorted(gw.sessions(agent_id).list(), key=lambda e: e.updated_at, reverse=True)


def _session_summary(gw: ApiHost, agent_id: str, now: int) -> dict[str, Any]:
    """OpenClaw's per-agent session summary: where the index is, how many, the newest few."""
    entries = _entries(gw, agent_id)
    recent = []
    for entry in entries[:RECENT_SESSIONS]:
        updated = epoch_ms(entry.updated_at)
        age = None if updated is None else now - updated
        recent.append({"key": entry.session_key, "updatedAt": updated, "age": age})
    return {"path": str(gw.paths.sessions_dir(agent_id) / "sessions.sqlite"), "count": len(entries), "recent": recent}


@takes(NoParams)
async def health(gw: ApiHost, params: NoParams) -> dict[str, Any]:
    """OpenClaw's health snapshot: the gateway answers (`ok`), and each agent's sessions."""
    started, now = time.perf_counter(), now_ms()
    agents = [
        {
            "agentId": agent_id,
            "isDefault": agent_id == "main",
            "heartbeat": {**HEARTBEAT_OFF, "prompt": "", "target": "none", "ackMaxChars": 0},
            "sessions": _session_summary(gw, agent_id, now),
        }
        for agent_id in gw.config.agent_ids
    ]
    return {
        "ok": True,
        "ts": now,
        "durationMs": int((time.perf_counter() - started) * 1000),
        "defaultAgentId": "main",
        "agents": agents,
        "sessions": agents[0]["sessions"],  # the default agent's, as OpenClaw's top-level summary is
    }


@takes(NoParams)
async def status(gw: ApiHost, params: NoParams) -> dict[str, Any]:
    """OpenClaw's status summary (version, heartbeats, sessions by agent, the newest rows), and claw's own
    counts beside it: `agents`, `activeRuns`, `uptimeMs`."""
    now = now_ms()
    by_agent, recent_entries = [], []
    for agent_id in gw.config.agent_ids:
        entries = _entries(gw, agent_id)
        recent_entries += entries[:RECENT_SESSIONS]
        by_agent.append({
            "agentId": agent_id,
            "path": str(gw.paths.sessions_dir(agent_id) / "sessions.sqlite"),
            "count": len(entries),
            "recent": [session_row(gw, e) for e in entries[:RECENT_SESSIONS]],
        })  # fmt: skip
    recent_entries.sort(key=lambda e: e.updated_at, reverse=True)
    main, agent_ids = gw.config.agent("main"), gw.config.agent_ids
    return {
        "runtimeVersion": __version__,
        "uptimeMs": int(now - gw.started_at * 1000),
        "heartbeat": {"defaultAgentId": "main", "agents": [{"agentId": a, **HEARTBEAT_OFF} for a in agent_ids]},
        "channelSummary": [],
        "queuedSystemEvents": [],
        "sessions": {
            "paths": [row["path"] for row in by_agent],
            "count": sum(row["count"] for row in by_agent),
            "defaults": {
                "model": next(iter(main.model.chain()), None),
                "contextTokens": gw.runner.context.window(main, main.model.chain()),  # as the rows and /context
            },
            "recent": [session_row(gw, e) for e in recent_entries[:RECENT_SESSIONS]],
            "byAgent": by_agent,
        },
        "agents": gw.config.agent_ids,
        "activeRuns": len(gw.runs.active()),
    }


@takes(NoParams)
async def agents_list(gw: ApiHost, params: NoParams) -> dict[str, Any]:
    """The configured agents (`main` first, the default), each with its workspace and model chain."""
    agents = []
    for agent_id in gw.config.agent_ids:
        chain = gw.config.agent(agent_id).model.chain()
        model: dict[str, Any] = {"fallbacks": chain[1:]}
        if chain:
            model["primary"] = chain[0]
        agents.append({"id": agent_id, "name": agent_id, "workspace": str(gw.workspace(agent_id)), "model": model})
    # OpenClaw's `scope: "global"` is one session literally named `global`; claw's sessions are per agent
    # and per sender (its `dmScope` then folds direct messages into each agent's `main`): `per-sender`,
    # so OpenClaw's TUI opens `agent:<id>:main`, the session claw's own console opens.
    return {"defaultId": "main", "mainKey": "main", "scope": "per-sender", "agents": agents}


@takes(NoParams)
async def models_list(gw: ApiHost, params: NoParams) -> dict[str, Any]:
    """Every model some agent's chain names, and every model configured under `[models]`, once each."""
    refs: list[str] = []
    for agent_id in gw.config.agent_ids:
        refs += gw.config.agent(agent_id).model.chain()
    refs += list(gw.config.models)
    models = []
    for ref in dict.fromkeys(refs):
        provider, model = split_model_ref(ref)
        row: dict[str, Any] = {"id": model or ref, "name": ref, "provider": provider or "openai"}
        window = gw.config.models[ref].context_window if ref in gw.config.models else None
        if window:
            row["contextWindow"] = window
        models.append(row)
    return {"models": models}


@takes(NoParams)
async def config_get(gw: ApiHost, params: NoParams) -> dict[str, Any]:
    """config.toml as the gateway read it, secrets masked (`claw.redact.mask_secrets`), with its hash."""
    from claw.config import read_config_dict
    from claw.redact import mask_secrets

    path = gw.paths.config_file

    def read() -> tuple[bytes | None, dict[str, Any]]:
        raw = path.read_bytes() if path.exists() else None
        return raw, read_config_dict(path)

    raw, values = await asyncio.to_thread(read)
    return {
        "path": str(path),
        "exists": raw is not None,
        "valid": True,  # the gateway is running on it: load_config refused anything invalid at start
        "config": mask_secrets(values),
        "hash": hashlib.sha256(raw or b"").hexdigest(),
    }


@takes(NoParams)
async def system_presence(gw: ApiHost, params: NoParams) -> list[dict[str, Any]]:
    """OpenClaw's presence list. claw keeps no presence beacons from clients; it lists itself, the one
    gateway process, as OpenClaw's own gateway does first."""
    return [{
        "host": platform.node() or "localhost",
        "version": __version__,
        "platform": platform.system().lower(),
        "mode": "gateway",
        "reason": "self",
        "text": f"claw gateway {__version__}",
        "ts": now_ms(),
    }]  # fmt: skip


@takes(NoParams)
async def last_heartbeat(gw: ApiHost, params: NoParams) -> None:
    """claw runs no heartbeats, so there is no last one (OpenClaw answers null before its first)."""
    return None


@takes(NoParams)
async def question_list(gw: ApiHost, params: NoParams) -> dict[str, Any]:
    """claw's agents do not ask structured questions (exec approvals are `exec.approval.list`)."""
    return {"questions": []}


@takes(AgentFilterParams)
async def task_suggestions_list(gw: ApiHost, params: AgentFilterParams) -> dict[str, Any]:
    """claw does not suggest tasks."""
    return {"suggestions": []}


SYSTEM_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("health", READ, health),
    RpcMethod("status", READ, status),
    RpcMethod("agents.list", READ, agents_list),
    RpcMethod("models.list", READ, models_list),
    RpcMethod("config.get", READ, config_get),
    RpcMethod("system-presence", READ, system_presence),
    RpcMethod("last-heartbeat", READ, last_heartbeat),
    RpcMethod("question.list", QUESTIONS, question_list),
    RpcMethod("taskSuggestions.list", READ, task_suggestions_list),
)
