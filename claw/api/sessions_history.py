"""The RPC methods that find, branch, rewind and export sessions: `sessions.search`, `sessions.reindex`,
`sessions.fork`, `sessions.forkPoints`, `sessions.undo` and `sessions.export`, part of the core's methods
(`CORE_METHODS`).

Methods rather than client code, so the CLI, the console and a remote client all get the same answer
from the one process that owns the state. The store does the work (`claw.store.search_sync`,
`claw.store.fork`, `claw.store.undo`), in a worker thread: a search may first read transcripts the
index has not taken in, a fork copies a whole one.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from claw.api.method import RpcMethod, table
from claw.api.params import (
    AgentParams,
    Flag,
    NonEmptyStr,
    OptionalAgentSessionKey,
    OptionalStr,
    SessionParams,
    takes,
)
from claw.errors import NotFoundError, UsageError
from claw.protocol.scopes import READ, WRITE

if TYPE_CHECKING:
    from claw.api.host import ApiHost
    from claw.store.search_index import SearchHit

MAX_RESULTS = 200
PREVIEW_CHARS = 200
"""How much of each message `sessions.forkPoints` sends: enough to recognise it in a picker."""


class SearchParams(AgentParams):
    """`sessions.search`: messages of `agentId`'s sessions (archived ones too) with every word of `query`."""

    query: NonEmptyStr
    limit: int = Field(20, ge=1, le=MAX_RESULTS, description=f"a whole number from 1 to {MAX_RESULTS}")
    since: OptionalStr = Field(None, description="an ISO-8601 time, e.g. 2026-01-31 or 2026-01-31T08:00:00Z")
    prefix: Flag = False


class ForkParams(SessionParams):
    """`sessions.fork`: copy `sessionKey` up to message `at` (default: all) into `newKey` (default: a new
    `agent:<id>:fork:<hex>` key)."""

    at: int | None = Field(None, ge=1, description="a message number >= 1")
    new_key: OptionalAgentSessionKey = None


class ExportParams(SessionParams):
    format: Literal["md", "jsonl", "html"] = Field("md", description="md, jsonl or html")


def hit_row(hit: SearchHit, current: Mapping[str, str]) -> dict[str, Any]:
    """One search result on the wire; `current` maps the agent's live session ids to their keys."""
    live = current.get(hit.session_id)
    return {
        "sessionKey": live or hit.session_key,
        "sessionId": hit.session_id,
        "archived": live is None,
        "entryId": hit.entry_id,
        "position": hit.position,
        "role": hit.role,
        "createdAt": hit.created_at,
        **hit.snippet.to_json(),
    }


@takes(SearchParams)
async def sessions_search(gw: ApiHost, params: SearchParams) -> dict[str, Any]:
    from claw.store.search_sync import catch_up

    store = gw.sessions(params.agent_id)

    def search() -> dict[str, Any]:
        index = store.search_index()
        catch_up(store, index)
        hits = index.search(params.query, limit=params.limit, since=params.since, prefix=params.prefix)
        current = {entry.session_id: entry.session_key for entry in store.list()}
        return {"query": params.query, "results": [hit_row(hit, current) for hit in hits]}

    return await asyncio.to_thread(search)


@takes(AgentParams)
async def sessions_reindex(gw: ApiHost, params: AgentParams) -> dict[str, Any]:
    from claw.store.search_sync import rebuild

    store = gw.sessions(params.agent_id)
    report = await asyncio.to_thread(lambda: rebuild(store, store.search_index()))
    return {"agentId": params.agent_id, "sessions": report.sessions, "archived": report.archived,
            "messages": report.messages}  # fmt: skip


@takes(ForkParams)
async def sessions_fork(gw: ApiHost, params: ForkParams) -> dict[str, Any]:
    from claw.api.session_rows import session_row
    from claw.store.fork import fork_session

    agent_id = params.session_agent
    new_key = params.new_key or f"agent:{agent_id}:fork:{secrets.token_hex(4)}"
    if not new_key.startswith(f"agent:{agent_id}:"):
        raise UsageError(f"a fork stays with its agent: use a key under agent:{agent_id}:")
    store = gw.sessions(agent_id)
    entry = await asyncio.to_thread(fork_session, store, params.session_key, new_key, at=params.at)
    return {**session_row(gw, entry), "forkedFrom": params.session_key, "forkedAt": entry.extra.get("forkedAt")}


@takes(SessionParams)
async def sessions_fork_points(gw: ApiHost, params: SessionParams) -> dict[str, Any]:
    """The user messages a client can fork at or edit (`/fork`'s and `/rewrite`'s picker), oldest first:
    each one's number, a preview, and the `at` of the fork keeping its exchange and of the one stopping
    short of it (`claw.store.fork.message_fork_points`)."""
    from claw.store.fork import message_fork_points

    key = params.session_key
    store = gw.sessions(params.session_agent)
    entry = store.get(key)
    if entry is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    points = await asyncio.to_thread(lambda: message_fork_points(store.transcript(entry).read()))
    rows = [{"number": p.number, "entryId": p.entry_id, "preview": p.text[:PREVIEW_CHARS], "createdAt": p.created_at,
             "before": p.before, "after": p.after} for p in points]  # fmt: skip
    return {"sessionKey": key, "points": rows}


@takes(SessionParams)
async def sessions_undo(gw: ApiHost, params: SessionParams) -> dict[str, Any]:
    from claw.store.undo import undo_last_exchange

    key = params.session_key
    if gw.lanes.session_busy(key):
        raise UsageError(f"a turn is running in {key}; wait for it (or /stop it), then undo")
    store = gw.sessions(params.session_agent)
    entry = store.get(key)
    if entry is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    marker = await asyncio.to_thread(undo_last_exchange, store.transcript(entry))
    return {"sessionKey": key, "undone": marker["messages"], "fromId": marker["fromId"]}


@takes(ExportParams)
async def sessions_export(gw: ApiHost, params: ExportParams) -> dict[str, Any]:
    key = params.session_key
    store = gw.sessions(params.session_agent)
    entry = store.get(key)
    if entry is None:
        raise NotFoundError(f"no session {key} (see `claw sessions ls`)")
    entries = await asyncio.to_thread(store.transcript(entry).read)
    return {"sessionKey": key, "format": params.format, "entries": len(entries),
            "text": render_export(entries, params.format, title=f"Session {key}")}  # fmt: skip


def render_export(entries: list[dict[str, Any]], fmt: str, *, title: str) -> str:
    """`entries` as an export: Markdown, JSON lines (the transcript as stored), or one HTML page."""
    if fmt == "jsonl":
        return "".join(json.dumps(entry, ensure_ascii=False) + "\n" for entry in entries)
    if fmt == "html":
        from claw.store.transcript_html import transcript_to_html

        return transcript_to_html(entries, title=title)
    from claw.transcript_markdown import transcript_to_markdown

    return transcript_to_markdown(entries, title=title)


SESSION_METHODS: Mapping[str, RpcMethod] = table(
    RpcMethod("sessions.search", READ, sessions_search),
    RpcMethod("sessions.reindex", WRITE, sessions_reindex),
    RpcMethod("sessions.fork", WRITE, sessions_fork),
    RpcMethod("sessions.forkPoints", READ, sessions_fork_points),
    RpcMethod("sessions.undo", WRITE, sessions_undo),
    RpcMethod("sessions.export", READ, sessions_export),
)
