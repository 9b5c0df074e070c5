"""Which operator scope each method needs, as OpenClaw assigns them, and the check a connection makes.

OpenClaw's operator scopes: `operator.read` (look), `operator.write` (run turns, change sessions; it
implies read), `operator.approvals` (answer exec questions), `operator.pairing` (list, approve and remove
devices), `operator.admin` (everything). A method
not in `METHOD_SCOPES` needs read when its name says it only looks (`….list`, `….get` …) and admin
otherwise: a capability's new mutating method is closed to a read/write client until it is listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

READ = "operator.read"
WRITE = "operator.write"
ADMIN = "operator.admin"
APPROVALS = "operator.approvals"
PAIRING = "operator.pairing"
OPERATOR_SCOPES = (ADMIN, APPROVALS, PAIRING, READ, WRITE)
"""What a client holding the gateway token may ask for (claw's CLI asks for all of them)."""

_READ_ONLY = ("health", "status", "last-heartbeat", "system-presence")
_READ_SUFFIXES = (".list", ".get", ".status", ".describe", ".history", ".search", ".show", ".read", ".context",
                  ".forkPoints", ".export", ".subscribe", ".unsubscribe")  # fmt: skip

METHOD_SCOPES: dict[str, str] = {
    **dict.fromkeys(_READ_ONLY, READ),
    "config.get": READ,  # secrets are redacted in the reply
    "agent": WRITE,
    "agent.wait": WRITE,
    "agent.abort": WRITE,
    "agent.follow": READ,
    "chat.send": WRITE,
    "chat.abort": WRITE,
    "chat.startup": READ,  # `chat.history` by another name (OpenClaw's Control UI opens a chat with it)
    "chat.inject": ADMIN,
    "sessions.patch": WRITE,
    "sessions.create": WRITE,
    "sessions.resolve": READ,
    "sessions.fork": WRITE,
    "sessions.undo": WRITE,
    "sessions.send": WRITE,
    "sessions.abort": WRITE,
    "sessions.steer": WRITE,
    "sessions.reindex": WRITE,
    "sessions.reset": ADMIN,
    "sessions.delete": ADMIN,  # WRITE with archivedOnly (see required_scope)
    "sessions.compact": ADMIN,
    "workspace.read": READ,
    "workspace.write": ADMIN,
    "exec.approval.list": APPROVALS,
    "exec.approval.get": APPROVALS,
    "exec.approval.resolve": APPROVALS,
    "plugin.approval.list": APPROVALS,
    "plugin.approval.resolve": APPROVALS,
    "question.list": "operator.questions",
    "device.pair.list": PAIRING,
    "device.pair.approve": PAIRING,
    "device.pair.reject": PAIRING,
    "device.pair.remove": PAIRING,
    "device.pair.rename": PAIRING,
    "logs.tail": READ,
    "diagnostics.stability": READ,
    "doctor.memory.status": READ,
    "openclaw.approval.list": APPROVALS,
    "approval.get": APPROVALS,
    "approval.resolve": APPROVALS,
    "wake": WRITE,
    "message.action": WRITE,
    "secrets.reload": ADMIN,
    "node.pair.list": PAIRING,
    "cron.runs": READ,
    "usage.cost": READ,  # cron.list, .get, .status: read by their names; .add, .update, .remove, .run: admin
}
"""Methods whose scope the name alone would not give (OpenClaw's assignments where it has the method)."""


_RESET_COMMAND = re.compile(r"^/(new|reset)(\s|$)", re.IGNORECASE)
_DELETE_AT_WRITE = frozenset({"key", "sessionKey", "agentId", "deleteTranscript", "expectedSessionId", "archivedOnly"})


def required_scope(method: str, params: Mapping[str, Any] | None = None) -> str:
    """The scope `method` needs; for the two whose scope OpenClaw takes from the params, with these `params`:
    `agent` with `/new` or `/reset` resets a session (admin), and `sessions.delete` is a writer's only
    with `archivedOnly: true` and nothing beyond OpenClaw's own delete fields (else admin)."""
    if method == "agent" and params is not None and _RESET_COMMAND.match(str(params.get("message", "")).strip()):
        return ADMIN
    if method == "sessions.delete" and params is not None:
        return WRITE if params.get("archivedOnly") is True and set(params) <= _DELETE_AT_WRITE else ADMIN
    known = METHOD_SCOPES.get(method)
    if known is not None:
        return known
    if method.startswith(("config.", "exec.approvals.")):
        return ADMIN  # OpenClaw reserves these prefixes for admins
    return READ if method.endswith(_READ_SUFFIXES) else ADMIN


def satisfied(needed: str, granted: Iterable[str]) -> bool:
    """Admin satisfies every scope; write satisfies read."""
    held = set(granted)
    return needed in held or ADMIN in held or (needed == READ and WRITE in held)


def missing_scope(method: str, granted: Iterable[str], params: Mapping[str, Any] | None = None) -> str | None:
    """The scope `method` (called with `params`) needs that `granted` lacks, or None when it may be called."""
    needed = required_scope(method, params)
    return None if satisfied(needed, granted) else needed
