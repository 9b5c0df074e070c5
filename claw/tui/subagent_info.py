"""`ChildInfo`: what the console knows about one subagent, from its run's events and `subagents.list` rows.

Two sources feed it. Events come first and live (the child's `spawned`, `start` and terminal events);
the gateway's registry, polled, is the authority on how a child ended (`timeout` looks like an abort
in the events) and says when its report turn was queued. A status never goes back: a poll that still
says `running` does not undo an `end` the events already brought.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from claw.vocab.run_event import Phase, RunEvent, Stream

FINISHED = frozenset({"ok", "error", "timeout", "aborted"})
SETTLED_ANNOUNCE = frozenset({"delivered", "noted", "failed"})
_RANK = {"queued": 0, "running": 1}
NAME_CHARS = 48


@dataclass(frozen=True, slots=True)
class ChildInfo:
    """One child run as the console shows it; times are wall-clock seconds (`time.time()`)."""

    run_id: str
    parent_run_id: str
    parent_session_key: str = ""
    session_key: str = ""
    agent_id: str = ""
    label: str | None = None
    task: str = ""
    status: str = "queued"
    started_at: float | None = None
    ended_at: float | None = None
    error: str | None = None
    announce: str = "pending"
    announce_run_id: str | None = None
    confirmed: bool = False
    """The registry has reported how the child ended (its word on `timeout` vs `aborted` is final)."""

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def settled(self) -> bool:
        """Ended, and its announcement is done: nothing about it will change any more."""
        return self.finished and self.announce in SETTLED_ANNOUNCE

    @property
    def name(self) -> str:
        text = self.label or " ".join(self.task.split()) or self.run_id[:8]
        return text if len(text) <= NAME_CHARS else text[: NAME_CHARS - 1] + "…"

    def elapsed(self, now: float | None = None) -> float | None:
        """Seconds it ran (so far, while running); None before it started."""
        if self.started_at is None:
            return None
        end = self.ended_at if self.ended_at is not None else (now or time.time())
        return max(0.0, end - self.started_at)

    def with_event(self, event: RunEvent) -> ChildInfo:
        """This child after one of its own run's events."""
        data = event.data
        if event.stream != Stream.LIFECYCLE:
            return self
        match event.phase:
            case Phase.ACCEPTED:
                return replace(self, agent_id=str(data.get("agentId") or self.agent_id))
            case Phase.SPAWNED:
                return replace(self, label=data.get("label") or self.label, task=str(data.get("task") or self.task))
            case Phase.START if not self.finished:
                return replace(self, status="running", started_at=self.started_at or time.time())
            case Phase.END if not self.confirmed:
                return replace(self, status="ok", ended_at=time.time(), error=None)
            case Phase.ERROR if not self.confirmed:
                return replace(self, status="error", ended_at=time.time(), error=data.get("message"))
            case Phase.ABORTED if not self.confirmed:
                return replace(self, status="aborted", ended_at=time.time(), error=data.get("reason"))
        return self

    def with_row(self, row: dict[str, Any]) -> ChildInfo:
        """This child after a `subagents.list` row about it."""
        status = str(row.get("status") or self.status)
        keep_ours = status not in FINISHED and _RANK.get(status, 2) < _RANK.get(self.status, 2)
        return replace(
            self,
            parent_session_key=str(row.get("parentSessionKey") or self.parent_session_key),
            session_key=str(row.get("sessionKey") or self.session_key),
            agent_id=str(row.get("agentId") or self.agent_id),
            label=row.get("label") or self.label,
            task=str(row.get("task") or self.task),
            status=self.status if keep_ours else status,
            started_at=row.get("startedAt") or self.started_at,
            ended_at=self.ended_at if keep_ours else row.get("endedAt") or self.ended_at,
            error=self.error if keep_ours else row.get("error"),
            announce=str(row.get("announce") or self.announce),
            announce_run_id=row.get("announceRunId") or self.announce_run_id,
            confirmed=status in FINISHED,
        )

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ChildInfo:
        return cls(run_id=str(row["runId"]), parent_run_id=str(row.get("parentRunId") or "")).with_row(row)
