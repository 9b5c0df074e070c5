"""The core's RPC methods, by wire name (`CORE_METHODS`). `Gateway.call_method` serves them and every
capability's; `LocalClient` and the WebSocket server both go through it."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, field_validator
from pydantic.alias_generators import to_camel

from claw.errors import NotFoundError, UsageError
from claw.gateway.approval_rows import approval_row
from claw.gateway.capability import Method
from claw.gateway.chat_methods import CHAT_METHODS
from claw.gateway.operator_methods import OPERATOR_METHODS
from claw.gateway.rpc_params import (
    AgentParams,
    Flag,
    Milliseconds,
    NonEmptyStr,
    NonNegativeInt,
    NoParams,
    OptionalAgentSessionKey,
    OptionalStr,
    Params,
    PositiveInt,
    SessionParams,
    takes,
)
from claw.gateway.session_lifecycle_methods import SESSION_LIFECYCLE_METHODS
from claw.gateway.session_methods import SESSION_METHODS
from claw.gateway.session_rows import now_ms, session_row, split_model_ref
from claw.gateway.system_methods import SYSTEM_METHODS
from claw.gateway.think_commands import set_think
from claw.safe_read import read_agent_text_async
from claw.store.sessions import SessionEntry
from claw.tools.exec_approvals import DECISIONS
from claw.vocab.msg_context import MsgContext
from claw.vocab.session_keys import agent_of
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


class WorkspaceFileParams(AgentParams):
    name: NonEmptyStr = Field(description="a workspace file name, e.g. USER.md or user")


class WorkspaceWriteParams(WorkspaceFileParams):
    content: str = Field(description="a string")


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


class ApprovalAnswerParams(Params):
    id: NonEmptyStr = Field(description="a pending approval's id (see exec.approval.list)")
    decision: NonEmptyStr = Field(description=f"one of {', '.join(sorted(DECISIONS))}")


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


class SessionsListParams(AgentParams):
    """`sessions.list` (OpenClaw's filters that claw's index can answer): newest first, `offset`/`limit`
    pages, `activeOnly` for sessions with a run going or queued, `search` in key, name and last message;
    `agentId` for one agent's (else every agent's)."""

    limit: PositiveInt | None = None
    offset: NonNegativeInt = 0
    active_only: Flag = False
    search: OptionalStr = None


@takes(SessionsListParams)
async def sessions_list(gw: Gateway, params: SessionsListParams) -> dict[str, Any]:
    """OpenClaw's `SessionsListResult`: `sessions` (rows, `claw.gateway.session_rows`) and the page's counts."""
    return _sessions_page(gw, params)


@takes(SessionsListParams)
async def sessions_subscribe(gw: Gateway, params: SessionsListParams) -> dict[str, Any]:
    """OpenClaw's `sessions.subscribe` called without a connection: `subscribed: false`, as OpenClaw answers
    a caller that has none (a subscription lives as long as its connection, which serves this name itself
    with a `claw.gateway.session_watch.SessionWatch`); with `sessions.list`'s parameters, the list too."""
    if not params.model_fields_set:
        return {"subscribed": False}
    return {"subscribed": False, "list": _sessions_page(gw, params)}


@takes(NoParams)
async def sessions_unsubscribe(gw: Gateway, params: NoParams) -> dict[str, Any]:
    return {"subscribed": False}


def _sessions_page(gw: Gateway, params: SessionsListParams) -> dict[str, Any]:
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
async def sessions_describe(gw: Gateway, params: SessionParams) -> dict[str, Any]:
    """One session's row (`key`), or `session: null` when there is none."""
    entry = gw.sessions(params.session_agent).get(params.session_key)
    return {"session": session_row(gw, entry) if entry is not None else None}


@takes(SessionParams)
async def sessions_get(gw: Gateway, params: SessionParams) -> dict[str, Any]:
    key = params.session_key
    entry = gw.sessions(params.session_agent).get(key)
    if entry is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    return {**session_row(gw, entry), "entry": asdict(entry)}


@takes(SessionParams)
async def sessions_reset(gw: Gateway, params: SessionParams) -> dict[str, Any]:
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
async def sessions_delete(gw: Gateway, params: SessionDeleteParams) -> dict[str, Any]:
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


@takes(WorkspaceFileParams)
async def workspace_read(gw: Gateway, params: WorkspaceFileParams) -> dict[str, Any]:
    agent_id = params.agent_id
    name = resolve_name(params.name)
    workspace = gw.workspace(agent_id)
    path = workspace / name
    # The agent can plant a link or a FIFO here: read by the rule for agent-writable files (a refusal is the
    # method's error, naming the file), never by following the name.
    hardlinks = gw.config.agent(agent_id).tools.files.allow_hardlinks
    text = await read_agent_text_async(workspace, name, allow_hardlinks=hardlinks) or ""
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


@takes(AgentParams)
async def agents_get(gw: Gateway, params: AgentParams) -> dict[str, Any]:
    """What a client needs to know about an agent: its model chain and context window."""
    agent_id = params.agent_id
    settings = gw.config.agent(agent_id)
    chain = settings.model.chain()
    return {
        "agentId": agent_id,
        "models": chain,
        "contextTokens": gw.runner.context.window(settings, chain),  # what a turn budgets with, as /context
        "bootstrapMaxChars": settings.bootstrap_max_chars,
        "workspace": str(gw.workspace(agent_id)),
    }


@takes(NoParams)
async def commands_list(gw: Gateway, params: NoParams) -> dict[str, Any]:
    """The slash commands the gateway handles, for completion in clients, as OpenClaw's command catalog:
    each typed as text (`/name args`) and, the core's and the capabilities' alike, `native` (OpenClaw's
    other sources, skills and plugins, are commands of its own plugin system)."""
    rows = [{"name": c.name, "description": c.description, "source": "native", "scope": "text", "acceptsArgs": True}
            for c in gw.commands.listing()]  # fmt: skip
    return {"commands": rows}


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
    return [approval_row(request) for request in gw.approvals.pending()]


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
    **SYSTEM_METHODS,  # health, status, agents.list, models.list, config.get, presence, lists claw has none of
    **OPERATOR_METHODS,  # logs.tail, diagnostics, node.*, approval.*, wake, secrets.reload: OpenClaw's CLI asks
    "agent": agent,
    "agent.wait": agent_wait,
    "agent.abort": agent_abort,
    "agent.follow": agent_follow,
    **CHAT_METHODS,  # chat.send, chat.abort, chat.history
    "sessions.list": sessions_list,
    "sessions.describe": sessions_describe,
    "sessions.subscribe": sessions_subscribe,  # over WebSocket the connection's own (SessionWatch)
    "sessions.unsubscribe": sessions_unsubscribe,
    "sessions.get": sessions_get,
    "sessions.reset": sessions_reset,
    "sessions.delete": sessions_delete,
    "sessions.patch": sessions_patch,
    **SESSION_METHODS,  # search, reindex, fork, undo, export
    **SESSION_LIFECYCLE_METHODS,  # create, resolve
    "workspace.read": workspace_read,
    "workspace.write": workspace_write,
    "agents.get": agents_get,
    "commands.list": commands_list,
    "exec.approval.list": approval_list,
    "exec.approval.resolve": approval_resolve,
}
"""The core's RPC methods; `Gateway.use` adds each capability's after these."""
