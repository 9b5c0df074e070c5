"""Session keys: which conversation a message belongs to (openclaw-spec §2.1).

Keys are lowercase and hierarchical: `agent:<agentId>:main` for the console and,
under the default dmScope, every direct message; per-peer shapes use `direct`;
groups `group:<id>`; threads append `:thread:<id>`. A spawned child's session,
`agent:<agentId>:subagent:<uuid>`, is made and recognised in claw/agent/run_scope.py.
"""

from __future__ import annotations

import re

from claw.errors import UsageError
from claw.gateway.msg_context import MsgContext

MAIN_KEY = "main"
DmScope = str  # main | per-peer | per-channel-peer | per-account-channel-peer

_UNSAFE = re.compile(r"[^a-z0-9_.@+=-]+")


def main_session_key(agent_id: str) -> str:
    return f"agent:{agent_id}:{MAIN_KEY}"


def _part(value: str) -> str:
    cleaned = _UNSAFE.sub("-", value.strip().lower())
    return cleaned or "unknown"


def session_key_for(ctx: MsgContext, agent_id: str, dm_scope: DmScope = "main") -> str:
    """Derive the session key for an inbound message routed to `agent_id`."""
    base = f"agent:{agent_id}"
    channel = _part(ctx.channel)
    if ctx.chat_type == "direct":
        peer = _part(ctx.peer_id)
        if dm_scope == "main" or ctx.channel in ("cli", "tui"):
            key = f"{base}:{MAIN_KEY}"
        elif dm_scope == "per-peer":
            key = f"{base}:direct:{peer}"
        elif dm_scope == "per-channel-peer":
            key = f"{base}:{channel}:direct:{peer}"
        elif dm_scope == "per-account-channel-peer":
            key = f"{base}:{channel}:{_part(ctx.account_id)}:direct:{peer}"
        else:
            raise UsageError(f"unknown dmScope {dm_scope!r}")
    else:
        kind = "group" if ctx.chat_type == "group" else "channel"
        key = f"{base}:{channel}:{kind}:{_part(ctx.group_id or ctx.peer_id)}"
    if ctx.thread_id:
        key += f":thread:{_part(ctx.thread_id)}"
    return key


def normalize_session_key(key: str, agent_id: str = "main") -> str:
    """Lowercase `key`; a bare key (not starting with `agent:`) is placed under `agent_id`."""
    key = key.strip().lower()
    if not key or key == MAIN_KEY:
        return main_session_key(agent_id)
    if not key.startswith("agent:"):
        key = f"agent:{agent_id}:{key}"
    parts = key.split(":")
    if len(parts) < 3 or any(not p for p in parts):
        raise UsageError(f"invalid session key {key!r}: expected agent:<agentId>:<rest>, e.g. agent:main:main")
    return key


def agent_of(session_key: str) -> str:
    """The agent id a normalised session key belongs to."""
    return session_key.split(":", 2)[1]
