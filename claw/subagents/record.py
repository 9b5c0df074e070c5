"""`SubagentRecord`: one spawned child, from spawn to announcement, and its wire and session-entry forms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["queued", "running", "ok", "error", "timeout", "aborted"]
Announce = Literal["pending", "running", "delivered", "noted", "failed"]
"""`delivered`: a parent turn ran on it; `noted`: written into the parent's transcript for its next turn
(no turn could run, e.g. the gateway was shutting down); `failed`: neither worked (logged)."""

FINISHED: frozenset[str] = frozenset({"ok", "error", "timeout", "aborted"})
SUBAGENT_KEY = "subagent"
"""The child's session entry keeps its record under `extra["subagent"]`."""
RESULT_PREVIEW_CHARS = 2_000


@dataclass(frozen=True, slots=True)
class SubagentRecord:
    """What the gateway knows about one child run."""

    run_id: str
    session_key: str
    agent_id: str
    parent_run_id: str
    parent_session_key: str
    task: str
    depth: int
    timeout_s: float
    created_at: float
    label: str | None = None
    status: Status = "queued"
    started_at: float | None = None
    ended_at: float | None = None
    result: str = ""
    error: str | None = None
    usage: tuple[tuple[str, int], ...] = ()
    announce: Announce = "pending"
    announce_run_id: str | None = None

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def settled(self) -> bool:
        """The child ended and its announcement is done (delivered, noted, or given up on)."""
        return self.finished and self.announce in ("delivered", "noted", "failed")

    @property
    def name(self) -> str:
        """How the child is shown: its label, else the start of its task."""
        text = self.label or " ".join(self.task.split())
        return text if len(text) <= 60 else text[:59] + "…"

    def to_wire(self) -> dict[str, Any]:
        """A `subagents.list` row."""
        return {
            "runId": self.run_id,
            "sessionKey": self.session_key,
            "agentId": self.agent_id,
            "parentRunId": self.parent_run_id,
            "parentSessionKey": self.parent_session_key,
            "label": self.label,
            "task": self.task,
            "depth": self.depth,
            "status": self.status,
            "createdAt": self.created_at,
            "startedAt": self.started_at,
            "endedAt": self.ended_at,
            "error": self.error,
            "announce": self.announce,
            "announceRunId": self.announce_run_id,
        }

    def to_entry(self) -> dict[str, Any]:
        """What the child's session entry stores (the result is cut; the whole reply is in its transcript)."""
        result = self.result
        cut = len(result) > RESULT_PREVIEW_CHARS
        return {
            **self.to_wire(),
            "timeoutSeconds": self.timeout_s,
            "result": result[:RESULT_PREVIEW_CHARS] + ("…" if cut else ""),
            "resultChars": len(result),
            "usage": dict(self.usage),
        }
