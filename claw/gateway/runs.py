"""Run records: each accepted message becomes a `Run` with its own event sequence and outcome."""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from claw.vocab.msg_context import MsgContext
from claw.vocab.run_event import RunEvent, Stream

MAX_REPLAY_EVENTS = 20_000
KEEP_FINISHED_RUNS = 1000


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """How a run ended: status ok | error | aborted, the final text and usage."""

    status: str
    text: str = ""
    error: str | None = None
    usage: dict[str, int] = field(default_factory=dict)
    started_at: float | None = None
    ended_at: float | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    """Extra fields for the terminal event (why a run was dropped, which run absorbed it)."""

    def to_wire(self, run_id: str | None = None, session_id: str | None = None) -> dict[str, Any]:
        """The final result of `agent` and `agent.wait`, in OpenClaw's shape (`status`, `summary`,
        `result.payloads[].text`, times in ms) with claw's own fields beside it (`text`, `error`, `usage`)."""
        started = _ms(self.started_at)
        ended = _ms(self.ended_at)
        meta: dict[str, Any] = {"durationMs": ended - started if started is not None and ended is not None else 0,
                                "usage": self.usage}  # fmt: skip
        if session_id:
            meta["agentMeta"] = {"sessionId": session_id}
        wire: dict[str, Any] = {
            **self.detail,
            "status": self.status,
            "summary": _SUMMARIES.get(self.status, self.status),
            "result": {"payloads": [{"text": self.text}] if self.text else [], "meta": meta},
            "text": self.text,
            "error": self.error,
            "usage": self.usage,
            "startedAt": started,
            "endedAt": ended,
        }
        if run_id is not None:
            wire = {"runId": run_id, **wire}
        if self.status == "aborted":
            wire["stopReason"] = "aborted"
        return wire


_SUMMARIES = {"ok": "completed", "error": "failed", "aborted": "aborted"}
"""OpenClaw's `summary` for each of claw's statuses."""


def _ms(seconds: float | None) -> int | None:
    return None if seconds is None else int(seconds * 1000)


@dataclass(eq=False)
class Run:
    """One run of one agent for one message. Mutable; owned by the gateway."""

    id: str
    agent_id: str
    session_key: str
    ctx: MsgContext
    accepted_at: float = field(default_factory=time.time)
    started_at: float | None = None
    session_id: str | None = None
    """The transcript the run writes to, known once it started."""
    model_override: str | None = None
    lane: str = "main"
    task: asyncio.Task[None] | None = None
    events: list[RunEvent] = field(default_factory=list)
    outcome: RunOutcome | None = None
    abort_requested: bool = False
    finishing: bool = False
    # Queue modes (claw/gateway/queueing.py):
    collect_open: bool = False
    """A queued collect run that later messages may still join."""
    last_merge_at: float = field(default_factory=time.monotonic)
    steer_candidates: list[Run] = field(default_factory=list)
    """Runs queued behind this one that it may absorb at its next model call (steer mode)."""
    absorbed_into: str | None = None
    drop_reason: str | None = None
    notes: list[str] = field(default_factory=list)
    """System notes recorded before this run's message (e.g. summaries of dropped messages)."""
    _seq: int = 0
    _done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    def next_event(self, stream: Stream, data: dict[str, Any]) -> RunEvent:
        self._seq += 1
        if stream == Stream.LIFECYCLE and data.get("phase") == "start" and isinstance(data.get("sessionId"), str):
            self.session_id = data["sessionId"]
        event = RunEvent(self.id, self._seq, self.session_key, stream, data, agent_id=self.agent_id,
                         session_id=self.session_id)  # fmt: skip
        if len(self.events) < MAX_REPLAY_EVENTS:
            self.events.append(event)
        return event

    def merge(self, ctx: MsgContext) -> None:
        """Append a later message to this queued run (collect mode)."""
        body = f"{self.ctx.body}\n\n{ctx.body}"
        body_for_agent = f"{self.ctx.body_for_agent}\n\n{ctx.body_for_agent}"
        self.ctx = replace(self.ctx, body=body, body_for_agent=body_for_agent)
        self.last_merge_at = time.monotonic()

    def take_steered(self) -> list[Run]:
        """The queued runs this run absorbs now; each is cancelled and will end as steered into this one."""
        taken = [c for c in self.steer_candidates if c.started_at is None and not c.finished and not c.abort_requested]
        self.steer_candidates.clear()
        for candidate in taken:
            candidate.absorbed_into = self.id
            candidate.abort_requested = True
            if candidate.task is not None:
                candidate.task.cancel()
        return taken

    def finish(self, outcome: RunOutcome) -> None:
        if self.outcome is None:
            self.outcome = outcome
            self._done.set()

    async def wait(self, timeout: float | None = None) -> RunOutcome | None:
        """The outcome, or None if `timeout` passed first. Never affects the run."""
        try:
            async with asyncio.timeout(timeout):
                await self._done.wait()
        except TimeoutError:
            return None
        return self.outcome


_RUN_ID_FROM_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")


def new_run_id(idempotency_key: str | None = None, taken: Callable[[str], bool] | None = None) -> str:
    """The client's idempotency key when it makes a safe, unused id (OpenClaw's clients match a run's
    events on the key they sent: openclaw-node drops every event whose runId differs); else a uuid."""
    if idempotency_key and _RUN_ID_FROM_KEY.match(idempotency_key) and not (taken and taken(idempotency_key)):
        return idempotency_key
    return uuid.uuid4().hex


class RunRegistry:
    """Active runs, plus the most recent finished ones for `agent.wait` and late subscribers.

    Finished runs are moved out of the active set the next time it is looked at, so every
    dispatch costs in proportion to the runs still going, not to the history kept."""

    def __init__(self) -> None:
        self._active: dict[str, Run] = {}
        self._finished: OrderedDict[str, Run] = OrderedDict()

    def add(self, run: Run) -> None:
        self._active[run.id] = run
        self._sweep()

    def get(self, run_id: str) -> Run | None:
        return self._active.get(run_id) or self._finished.get(run_id)

    def active(self, session_key: str | None = None) -> list[Run]:
        self._sweep()
        return [r for r in self._active.values() if session_key is None or r.session_key == session_key]

    def _sweep(self) -> None:
        for run in [r for r in self._active.values() if r.finished]:
            del self._active[run.id]
            self._finished[run.id] = run
        while len(self._finished) > KEEP_FINISHED_RUNS:
            _rid, old = self._finished.popitem(last=False)
            old.events.clear()
