"""What the session tools share: naming a target session, checking the caller may reach it, and session kinds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claw.errors import ClawError
from claw.store.sessions import SessionEntry
from claw.subagents.policy import ALLOW_KEY, PARENT_KEY, agent_refusal, visibility_refusal
from claw.tools.base import ToolContext
from claw.vocab.session_keys import agent_of, normalize_session_key

if TYPE_CHECKING:
    from claw.gateway.host import SessionLookup

KINDS = ("main", "direct", "group", "channel", "cron", "subagent", "other")
MAX_LINEAGE = 8


def kind_of(session_key: str) -> str:
    """`main`, `direct`, `group`, `channel`, `cron`, `subagent` or `other`, from the key's shape."""
    rest = session_key.split(":", 2)[2] if session_key.count(":") >= 2 else ""
    head = rest.split(":", 1)[0]
    if rest == "main":
        return "main"
    if head in ("subagent", "cron"):
        return head
    parts = rest.split(":")
    for kind in ("group", "channel", "direct"):
        if kind in parts:
            return kind
    return "other"


def lineage(host: SessionLookup, entry: SessionEntry) -> list[str]:
    """The session keys `entry` was spawned from, nearest first."""
    chain: list[str] = []
    current: SessionEntry | None = entry
    while current is not None and len(chain) < MAX_LINEAGE:
        parent = current.extra.get(PARENT_KEY)
        if not isinstance(parent, str) or parent in chain:
            break
        chain.append(parent)
        try:
            current = host.sessions(agent_of(parent)).get(parent)
        except ClawError:  # the parent's agent is no longer configured
            break
    return chain


def reachable(host: SessionLookup, ctx: ToolContext, entry: SessionEntry) -> str | None:
    """None when the caller may see and message `entry`'s session, else why not."""
    chain = lineage(host, entry)
    return visibility_refusal(ctx.session_key, entry.session_key, ctx.settings, ctx.sender_authorized, chain)


def target_entry(host: SessionLookup, ctx: ToolContext, raw_key: str, tool: str) -> SessionEntry:
    """The session a tool names (a bare key is under the caller's agent); ClawError if unknown or out of reach."""
    key = normalize_session_key(raw_key, ctx.agent_id)
    allowed = ctx.settings.tools.sessions.allow_agents
    refusal = agent_refusal(ctx.agent_id, agent_of(key), allowed, ALLOW_KEY)
    if refusal:  # before looking: another agent's sessions are not even confirmed to exist
        raise ClawError(f"{tool}: {refusal}")
    try:
        entry = host.sessions(agent_of(key)).get(key)
    except ClawError as exc:
        raise ClawError(f"{tool}: {exc.message}") from None
    if entry is None:
        raise ClawError(f"{tool}: no session {key}; sessions_list shows the ones you can reach")
    refusal = reachable(host, ctx, entry)
    if refusal:
        raise ClawError(f"{tool}: {refusal}")
    return entry
