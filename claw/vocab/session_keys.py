"""Session keys: which conversation a message belongs to (openclaw-spec §2.1).

Keys are lowercase and hierarchical: `agent:<agentId>:main` for the console and,
under the default dmScope, every direct message; per-peer shapes use `direct`;
groups `group:<id>`; threads append `:thread:<id>`. A spawned child's session is
`agent:<agentId>:subagent:<uuid>` (`subagent_session_key`, `is_subagent_key`).

A key that arrives from outside (an RPC parameter, the `X-Claw-Session` header, `--session`) goes
through `normalize_session_key`, which checks it (`check_session_key`): at most `MAX_SESSION_KEY_CHARS`;
between the `:`s only what claw's own keys are made of (lowercase letters, digits and `_.@+=-`, to
which `_part` and `key_segment` clean outside ids; cron ids are hex, subagent ids uuids); and the
shape `agent:<agentId>:<rest>` with a valid agent id. So `../../etc/passwd` or a 5,000-character key
is refused before it is stored, logged or shown.
"""

from __future__ import annotations

import hashlib
import re
import uuid

from claw.errors import UsageError
from claw.vocab.msg_context import MsgContext

MAIN_KEY = "main"
DmScope = str  # main | per-peer | per-channel-peer | per-account-channel-peer
MAX_SESSION_KEY_CHARS = 256
"""The longest session key claw accepts; the keys it makes itself are far shorter."""

_UNSAFE = re.compile(r"[^a-z0-9_.@+=-]+")
_NOT_KEY_CHAR = re.compile(r"[^a-z0-9_.@+=:-]")  # what `_part` leaves, and ':' between the segments
_AGENT_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")  # claw.paths.check_agent_id's rule
_SHOWN_CHARS = 40


class InvalidSessionKey(UsageError):
    """A session key claw will not use. `detail` says why without the "invalid session key" prefix, for
    callers that name the key's source themselves (an RPC parameter, an HTTP header)."""

    def __init__(self, detail: str) -> None:
        super().__init__(f"invalid session key: {detail}")
        self.detail = detail


def main_session_key(agent_id: str) -> str:
    return f"agent:{agent_id}:{MAIN_KEY}"


def _part(value: str) -> str:
    cleaned = _UNSAFE.sub("-", value.strip().lower())
    return cleaned or "unknown"


def key_segment(value: str, *, empty: str = "x", max_chars: int = 64) -> str:
    """A session-key segment from an id that came from outside (an HTTP `user`): cleaned to the
    characters of a key and cut to `max_chars`; an id that had to be changed gets a hash of the original
    appended, so distinct ids stay distinct. `empty` stands in when nothing is left after cleaning."""
    cleaned = _UNSAFE.sub("-", value.strip().lower())[:max_chars] or empty
    return cleaned if cleaned == value else f"{cleaned}-{hashlib.sha256(value.encode()).hexdigest()[:8]}"


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
    """Lowercase `key`; a bare key (not starting with `agent:`) is placed under `agent_id`. The result is
    checked (`check_session_key`): InvalidSessionKey, a UsageError, if claw cannot use it."""
    key = key.strip().lower()
    if not key or key == MAIN_KEY:
        return check_session_key(main_session_key(agent_id))
    if not key.startswith("agent:"):
        key = f"agent:{agent_id}:{key}"
    return check_session_key(key)


def check_session_key(key: str) -> str:
    """`key` if it is a well-formed, normalised session key, else InvalidSessionKey saying what is wrong.

    Checked in the order a reader would fix it: the length first (so a huge key is not scanned or
    echoed whole), then the characters, then the `agent:<agentId>:<rest>` shape."""
    shown = _shown(key)
    if len(key) > MAX_SESSION_KEY_CHARS:
        raise InvalidSessionKey(f"{shown} is {len(key):,} characters long; the limit is {MAX_SESSION_KEY_CHARS}")
    if bad := _NOT_KEY_CHAR.search(key):
        raise InvalidSessionKey(f"{shown} contains {bad.group()!r}; use lowercase letters, digits, ':' and _ . @ + = -")
    parts = key.split(":")
    if len(parts) < 3 or parts[0] != "agent" or any(not p for p in parts):
        raise InvalidSessionKey(f"{shown} is not a key of the form agent:<agentId>:<rest>, e.g. agent:main:main")
    if not _AGENT_ID.fullmatch(parts[1]):
        raise InvalidSessionKey(f"{shown} names no valid agent id ({parts[1]!r}: 1-64 of a-z, 0-9, '_' or '-')")
    return key


def _shown(key: str) -> str:
    """`key` quoted for an error message, cut short: a rejected key may be thousands of characters."""
    return repr(key) if len(key) <= _SHOWN_CHARS else repr(key[:_SHOWN_CHARS]) + "…"


def agent_of(session_key: str) -> str:
    """The agent id a normalised session key belongs to."""
    return session_key.split(":", 2)[1]


def subagent_session_key(agent_id: str) -> str:
    """A fresh `agent:<agentId>:subagent:<uuid>` key for one spawned child."""
    return f"agent:{agent_id}:subagent:{uuid.uuid4()}"


def is_subagent_key(session_key: str) -> bool:
    """True for `agent:<agentId>:subagent:<id>` keys (and threads under them)."""
    parts = session_key.split(":")
    return len(parts) >= 4 and parts[0] == "agent" and parts[2] == "subagent"
