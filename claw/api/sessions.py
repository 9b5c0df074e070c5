"""The session list and its changes: `sessions.list`, `describe`, `get`, `subscribe`/`unsubscribe` (the list's
changes, `claw.api.session_watch` over WebSocket), `patch`, `reset` and `delete`."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, field_validator
from pydantic.alias_generators import to_camel

from claw.api.method import RpcMethod, table
from claw.api.params import (
    AgentParams,
    Flag,
    NonNegativeInt,
    NoParams,
    OptionalStr,
    PositiveInt,
    SessionParams,
    takes,
)
from claw.api.session_rows import now_ms, session_row, split_model_ref
from claw.errors import NotFoundError, UsageError
from claw.gateway.think_commands import set_think
from claw.protocol.scopes import ADMIN, READ, WRITE
from claw.store.sessions import SessionEntry
from claw.vocab.session_keys import agent_of

if TYPE_CHECKING:
    from claw.api.host import ApiHost


UNSUPPORTED_SESSION_SETTINGS = ("archived", "elevated_level", "fast_mode", "group_activation", "reasoning_level",
                                "response_usage", "trace_level")  # fmt: skip
"""OpenClaw's per-session settings (its TUI's /elevated, /fast, /activation, /reasoning, /usage, /trace, its
CLI's `sessions archive`) that claw has no such thing for: refused by name, not silently dropped."""


class SessionPatchParams(SessionParams):
    """`sessions.patch`: only the fields given change; `model: null` goes back to the agent's own."""

    model: str | None = Field(None, description="a model ref such as openai/gpt-4o-mini, or null")
    thinking_level: str | None = Field(None, description="off, low, high, or null for the model's default")
    verbose_level: Literal["on", "off", "full"] | None = Field(
        None, description="on, off, full, or null: how much of a run's tool calls OpenClaw's clients show"
    )
    archived: Any = None  # OpenClaw's `sessions archive`: claw keeps no archived-but-listed state
    elevated_level: Any = None
    fast_mode: Any = None
    group_activation: Any = None
    reasoning_level: Any = None
    response_usage: Any = None
    trace_level: Any = None

    @field_validator("model")
    @classmethod
    def _model_ref(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("a model ref such as openai/gpt-4o-mini, or null; got an empty string")
        return value.strip() if value else None


class SessionsListParams(AgentParams):
    """`sessions.list` (OpenClaw's filters that claw's index can answer): newest first, `offset`/`limit`
    pages, `activeOnly` for sessions with a run going or queued, `search` in key, name and last message;
    `agentId` for one agent's (else every agent's)."""

    limit: PositiveInt | None = None
    offset: NonNegativeInt = 0
    active_only: Flag = False
    search: OptionalStr = None


@takes(SessionsListParams)
async def sessions_list(gw: ApiHost, params: SessionsListParams) -> dict[str, Any]:
    """OpenClaw's `SessionsListResult`: `sessions` (rows, `claw.api.session_rows`) and the page's counts."""
    return _sessions_page(gw, params)


@takes(SessionsListParams)
async def sessions_subscribe(gw: ApiHost, params: SessionsListParams) -> dict[str, Any]:
    """OpenClaw's `sessions.subscribe` called without a connection: `subscribed: false`, as OpenClaw answers
    a caller that has none (a subscription lives as long as its connection, which serves this name itself
    with a `claw.api.session_watch.SessionWatch`); with `sessions.list`'s parameters, the list too."""
    if not params.model_fields_set:
        return {"subscribed": False}
    return {"subscribed": False, "list": _sessions_page(gw, params)}


@takes(NoParams)
async def sessions_unsubscribe(gw: ApiHost, params: NoParams) -> dict[str, Any]:
    return {"subscribed": False}


def _sessions_page(gw: ApiHost, params: SessionsListParams) -> dict[str, Any]:
    # `agentId` given: that agent's sessions (claw's CLI and console always say); absent: every agent's,
    # as OpenClaw's gateway lists its whole index.
    agents = [params.agent_id] if "agent_id" in params.model_fields_set else gw.config.agent_ids
    found = [entry for agent_id in agents for entry in gw.sessions(agent_id).list()]
    entries = sorted(found, key=lambda e: e.updated_at, reverse=True)
    if params.active_only:
        entries = [e for e in entries if gw.runs.active(e.session_key)]
    if params.search:
        needle = params.search.lower()
        entries = [e for e in entries if needle in f"{e.session_key} {e.display_name or ''} {e.last_preview}".lower()]
    end = None if params.limit is None else params.offset + params.limit
    page = entries[params.offset : end]
    more = end is not None and end < len(entries)
    settings = gw.config.agent(params.agent_id)
    chain = settings.model.chain()
    return {
        "ts": now_ms(),
        "path": str(gw.paths.sessions_dir(params.agent_id) / "sessions.sqlite"),
        "count": len(page),
        "totalCount": len(entries),
        "limitApplied": params.limit,
        "nextOffset": end if more else None,
        "hasMore": more,
        # The window a turn on the default model budgets with (as each row's and /context), not the cap setting.
        "defaults": {"model": next(iter(chain), None), "contextTokens": gw.runner.context.window(settings, chain)},
        "sessions": [session_row(gw, e) for e in page],
    }


@takes(SessionParams)
async def sessions_describe(gw: ApiHost, params: SessionParams) -> dict[str, Any]:
    """One session's row (`key`), or `session: null` when there is none."""
    entry = gw.sessions(params.session_agent).get(params.session_key)
    return {"session": session_row(gw, entry) if entry is not None else None}


@takes(SessionParams)
async def sessions_get(gw: ApiHost, params: SessionParams) -> dict[str, Any]:
    key = params.session_key
    entry = gw.sessions(params.session_agent).get(key)
    if entry is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    return {**session_row(gw, entry), "entry": asdict(entry)}


@takes(SessionParams)
async def sessions_reset(gw: ApiHost, params: SessionParams) -> dict[str, Any]:
    key = params.session_key
    if gw.sessions(params.session_agent).get(key) is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    gw.abort_session(key)
    entry = await gw.reset_session(key)
    gw.broadcasts.session_changed(key, "reset")
    return {"ok": True, "key": key, "entry": session_row(gw, entry)}


class SessionDeleteParams(SessionParams):
    """`sessions.delete` with OpenClaw's fields: `expectedSessionId` (refused if the key now names another
    session), `archivedOnly` (only an archived session: claw keeps none, so it is refused), and
    `deleteTranscript` (claw keeps the transcript in archive/ either way)."""

    expected_session_id: OptionalStr = None
    archived_only: Flag = False
    delete_transcript: Flag = False


@takes(SessionDeleteParams)
async def sessions_delete(gw: ApiHost, params: SessionDeleteParams) -> dict[str, Any]:
    key = params.session_key
    store = gw.sessions(params.session_agent)
    entry = store.get(key)
    if params.archived_only:
        raise UsageError(f"session {key} is not archived (claw keeps no archived sessions): nothing deleted")
    if params.expected_session_id and (entry is None or entry.session_id != params.expected_session_id):
        raise UsageError(f"session {key} is not session {params.expected_session_id} any more: nothing deleted")
    gw.abort_session(key)

    def delete() -> list[str] | None:
        """The transcripts now in archive/, or None when there was no such session."""
        if not store.delete(key):
            return None
        return sorted(str(p) for p in store.archive_dir.glob(f"{entry.session_id}*.jsonl")) if entry else []

    archived = await asyncio.to_thread(delete)
    if archived is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    gw.broadcasts.session_changed(key, "delete", deleted_session_id=entry.session_id if entry else None)
    return {"ok": True, "key": key, "deleted": True, "archived": archived}


@takes(SessionPatchParams)
async def sessions_patch(gw: ApiHost, params: SessionPatchParams) -> dict[str, Any]:
    """Change a session's settings (now: `model`, a model ref, or null for the agent's own); creates the
    session if it has no turns yet."""
    key = params.session_key
    given = params.model_fields_set
    for name in UNSUPPORTED_SESSION_SETTINGS:
        if name in given:
            raise UsageError(f"claw has no per-session {to_camel(name)} setting; sessions.patch takes model, "
                             "thinkingLevel and verboseLevel")  # fmt: skip
    store = gw.sessions(params.session_agent)
    changes: dict[str, Any] = {}
    if "model" in given:  # absent: unchanged; null: back to the agent's own
        changes["model_override"] = params.model

    def patch() -> SessionEntry:
        store.get_or_create(key, channel=params.caller_channel)
        # First the one change that can be refused (as `/think`: a level the model's server has a switch
        # for, or default), so a refused patch changes nothing.
        if "thinking_level" in given:
            set_think(gw, params.session_agent, key, params.thinking_level or "default")
        entry = store.update(key, **changes)
        if "verbose_level" in given:
            entry = store.merge_extra(key, {"verboseLevel": params.verbose_level})
        return entry

    entry = await asyncio.to_thread(patch)
    gw.broadcasts.session_changed(key, "patch")
    chain = [entry.model_override] if entry.model_override else gw.config.agent(agent_of(key)).model.chain()
    provider, model = split_model_ref(next(iter(chain), None))
    resolved = {"modelProvider": provider, "model": model}
    return {"ok": True, "key": key, "entry": session_row(gw, entry), "resolved": resolved}


_DELETE_AT_WRITE = frozenset({"key", "sessionKey", "agentId", "deleteTranscript", "expectedSessionId", "archivedOnly"})


def sessions_delete_scope(params: Mapping[str, Any] | None) -> str:
    """`sessions.delete` is a writer's only with `archivedOnly: true` and nothing beyond OpenClaw's own delete
    fields; else admin."""
    if params is not None and params.get("archivedOnly") is True and set(params) <= _DELETE_AT_WRITE:
        return WRITE
    return ADMIN


SESSIONS_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("sessions.list", READ, sessions_list),
    RpcMethod("sessions.describe", READ, sessions_describe),
    RpcMethod("sessions.subscribe", READ, sessions_subscribe),
    RpcMethod("sessions.unsubscribe", READ, sessions_unsubscribe),
    RpcMethod("sessions.get", READ, sessions_get),
    RpcMethod("sessions.reset", ADMIN, sessions_reset),
    RpcMethod("sessions.delete", sessions_delete_scope, sessions_delete),
    RpcMethod("sessions.patch", WRITE, sessions_patch),
)
"""The session list and its changes, by wire name (part of `claw.api.core.CORE_METHODS`)."""
