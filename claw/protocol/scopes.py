"""OpenClaw's operator scopes, the rule for a method that declares none, and the check a connection makes.

OpenClaw's operator scopes: `operator.read` (look), `operator.write` (run turns, change sessions; it
implies read), `operator.approvals` (answer exec questions), `operator.pairing` (list, approve and remove
devices), `operator.admin` (everything). Each method declares the scope it needs beside itself
(`claw.api.method.RpcMethod`); one that does not needs read when its name says it only looks (`….list`,
`….get` …) and admin otherwise, so a new mutating method is closed to a read/write client until it says.
"""

from __future__ import annotations

from collections.abc import Iterable

READ = "operator.read"
WRITE = "operator.write"
ADMIN = "operator.admin"
APPROVALS = "operator.approvals"
PAIRING = "operator.pairing"
OPERATOR_SCOPES = (ADMIN, APPROVALS, PAIRING, READ, WRITE)
"""What a client holding the gateway token may ask for (claw's CLI asks for all of them)."""
QUESTIONS = "operator.questions"
"""OpenClaw's scope for its agent-question list; claw grants it to no one but an admin."""

_READ_SUFFIXES = (".list", ".get", ".status", ".describe", ".history", ".search", ".show", ".read", ".context",
                  ".forkPoints", ".export", ".subscribe", ".unsubscribe")  # fmt: skip


def scope_by_name(method: str) -> str:
    """The scope of a method that does not declare one: read when its name says it only looks, admin
    otherwise (OpenClaw reserves `config.` and `exec.approvals.` for admins)."""
    if method.startswith(("config.", "exec.approvals.")):
        return ADMIN
    return READ if method.endswith(_READ_SUFFIXES) else ADMIN


def satisfied(needed: str, granted: Iterable[str]) -> bool:
    """Admin satisfies every scope; write satisfies read."""
    held = set(granted)
    return needed in held or ADMIN in held or (needed == READ and WRITE in held)


def missing_scope(needed: str, granted: Iterable[str]) -> str | None:
    """`needed` when `granted` does not satisfy it, else None (the call may go ahead)."""
    return None if satisfied(needed, granted) else needed
