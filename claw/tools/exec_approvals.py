"""Exec approvals: the persisted "allow always" list, and the broker that asks the user.

`ExecApprovalsStore` keeps `exec-approvals.json` (mode 0600, replaced atomically):

    {"version": 1, "agents": {"main": {"allowlist": [
        {"pattern": "/usr/bin/git", "addedAt": "2025-01-01T00:00:00+00:00", "lastCommand": "git status"},
        {"binary": "/usr/bin/git", "args": ["-c", "'alias.st=status'", "st"], "addedAt": "…",
         "lastCommand": "git -c 'alias.st=status' st"}]}}}

A `pattern` entry allows its binary's plain invocations; since exec approvals look at
arguments, that is also how every entry written before them is read (migrated in
meaning, unchanged on disk): `git status` still runs, `git -c alias.x='!cmd' x` asks.
A `binary` + `args` entry allows exactly that command (`AllowEntry`). The addition keeps
`version` 1 on purpose: an older claw skips entries without a `pattern`, so a file written
now never makes an older reader allow more than it did.

`ApprovalBroker` implements the `Approvals` protocol the `exec` tool uses. A UI
registers an approver coroutine; every question also waits as a pending request
with a future, so a remote client can answer it by id (`resolve`). Whichever
answer comes first wins; an aborted run cancels the question and leaves nothing
pending.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from claw.paths import ensure_private_dir
from claw.store.atomic import atomic_write_bytes
from claw.store.file_lock import locked
from claw.tools.allow_entry import AllowEntry
from claw.tools.base import ApprovalRequest, Decision

log = logging.getLogger(__name__)

Approver = Callable[[ApprovalRequest], Awaitable["Decision | None"]]
"""Asks a user; None means "nobody here to answer" (another approver, or the fallback, decides)."""
DECISIONS: frozenset[str] = frozenset({"allow-once", "allow-always", "deny"})


class ExecApprovalsStore:
    """The per-agent allowlist entries the user chose to "allow always"."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def entries(self, agent_id: str) -> list[AllowEntry]:
        """Every entry of `agent_id`: plain binaries and exact commands."""
        return [_entry(raw) for raw in self._entries(self._load(), agent_id)]

    def allowlist(self, agent_id: str) -> list[str]:
        """The plain binary patterns of `agent_id` (without its exact commands)."""
        return [entry.pattern for entry in self.entries(agent_id) if not entry.exact]

    def remember(self, agent_id: str, entry: AllowEntry | str, command: str) -> None:
        """Add `entry` (a plain pattern, given as text or entry) for `agent_id`, or refresh its `lastCommand`.

        Read and written under the file's lock, so an approval given in another process meanwhile
        (a console and a gateway on one state dir) is kept, not overwritten."""
        wanted = AllowEntry(entry) if isinstance(entry, str) else entry
        ensure_private_dir(self.path.parent)
        with locked(self.path):
            data = self._load()
            entries = self._entries(data, agent_id)
            for raw in entries:
                if _entry(raw) == wanted:
                    raw["lastCommand"] = command
                    break
            else:
                entries.append({**_record(wanted), "addedAt": datetime.now(UTC).isoformat(), "lastCommand": command})
            data["agents"].setdefault(agent_id, {})["allowlist"] = entries
            atomic_write_bytes(self.path, (json.dumps(data, indent=2) + "\n").encode(), mode=0o600)

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {"version": 1, "agents": {}}
        except (OSError, ValueError) as exc:
            # Unreadable approvals only ever mean fewer commands run unasked. Keep the
            # bad file for the user instead of overwriting it on the next "allow always".
            log.warning("ignoring unreadable %s (%s); moved aside", self.path, exc)
            os.replace(self.path, self.path.with_name(self.path.name + ".bad"))
            return {"version": 1, "agents": {}}
        if not isinstance(data, dict) or not isinstance(data.get("agents"), dict):
            log.warning("ignoring %s: not an exec approvals file", self.path)
            return {"version": 1, "agents": {}}
        return data

    @staticmethod
    def _entries(data: dict[str, Any], agent_id: str) -> list[dict[str, Any]]:
        agent = data["agents"].get(agent_id)
        raw = agent.get("allowlist") if isinstance(agent, dict) else None
        if not isinstance(raw, list):
            return []
        return [e for e in raw if isinstance(e, dict) and _readable(e)]


def _readable(raw: dict[str, Any]) -> bool:
    if "pattern" in raw:
        return isinstance(raw["pattern"], str)
    args = raw.get("args")
    return isinstance(raw.get("binary"), str) and isinstance(args, list) and all(isinstance(a, str) for a in args)


def _entry(raw: dict[str, Any]) -> AllowEntry:
    if "pattern" in raw:
        return AllowEntry(raw["pattern"])
    return AllowEntry(raw["binary"], tuple(raw["args"]))


def _record(entry: AllowEntry) -> dict[str, Any]:
    if entry.args is None:
        return {"pattern": entry.pattern}
    return {"binary": entry.pattern, "args": list(entry.args)}


class ApprovalBroker:
    """The `Approvals` implementation: the store, the registered approvers, and pending questions by id.

    Several approvers may be registered at once (the console, a remote client relayed by the server),
    each under its own name; a question goes to all of them and the first answer wins — the others
    are cancelled, so their dialogs close.
    """

    def __init__(self, store: ExecApprovalsStore) -> None:
        self.store = store
        self._approvers: dict[str, Approver] = {}
        self._pending: dict[str, tuple[ApprovalRequest, asyncio.Future[Decision | None]]] = {}

    def set_approver(self, callback: Approver | None, *, name: str = "local") -> None:
        """Register (or with None, unregister) the approver called `name`."""
        if callback is None:
            self._approvers.pop(name, None)
        else:
            self._approvers[name] = callback

    @property
    def has_approver(self) -> bool:
        return bool(self._approvers)

    def allowlist(self, agent_id: str) -> list[AllowEntry]:
        return self.store.entries(agent_id)

    def remember(self, agent_id: str, entry: AllowEntry, command: str) -> None:
        self.store.remember(agent_id, entry, command)

    def pending(self) -> list[ApprovalRequest]:
        """The questions waiting for an answer, oldest first."""
        return [request for request, _ in self._pending.values()]

    def resolve(self, request_id: str, decision: Decision) -> bool:
        """Answer a pending question; False if there is no such question (any more)."""
        if decision not in DECISIONS:
            raise ValueError(f"unknown decision {decision!r}; expected one of {sorted(DECISIONS)}")
        item = self._pending.get(request_id)
        if item is None or item[1].done():
            return False
        item[1].set_result(decision)
        return True

    async def ask(self, request: ApprovalRequest) -> Decision | None:
        """The first approver's decision, or None when no approver is registered or none answers."""
        approvers = list(self._approvers.values())
        if not approvers:
            return None
        future: asyncio.Future[Decision | None] = asyncio.get_running_loop().create_future()
        self._pending[request.id] = (request, future)
        tasks = [asyncio.create_task(self._consult(a, request, future)) for a in approvers]
        watcher = asyncio.create_task(self._none_if_all_silent(tasks, future))
        try:
            return await future
        finally:
            self._pending.pop(request.id, None)
            future.cancel()
            for task in (*tasks, watcher):
                task.cancel()

    @staticmethod
    async def _none_if_all_silent(tasks: list[asyncio.Task[None]], future: asyncio.Future[Decision | None]) -> None:
        await asyncio.gather(*tasks, return_exceptions=True)
        if not future.done():
            future.set_result(None)

    @staticmethod
    async def _consult(approver: Approver, request: ApprovalRequest, future: asyncio.Future[Decision | None]) -> None:
        try:
            decision: Decision | None = await approver(request)
        except Exception:
            log.exception("exec approver failed for request %s", request.id)
            return
        if decision is None:
            return
        if decision not in DECISIONS:
            log.warning("exec approver returned %r for request %s; treating it as deny", decision, request.id)
            decision = "deny"
        if not future.done():
            future.set_result(decision)
