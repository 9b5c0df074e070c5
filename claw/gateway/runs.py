"""Run records: each accepted message becomes a `Run` with its own event sequence and outcome."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from claw.gateway.msg_context import MsgContext
from claw.gateway.run_event import RunEvent, Stream

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

    def to_wire(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "text": self.text,
            "error": self.error,
            "usage": self.usage,
            "startedAt": self.started_at,
            "endedAt": self.ended_at,
        }


@dataclass(eq=False)
class Run:
    """One run of one agent for one message. Mutable; owned by the gateway."""

    id: str
    agent_id: str
    session_key: str
    ctx: MsgContext
    accepted_at: float = field(default_factory=time.time)
    started_at: float | None = None
    model_override: str | None = None
    lane: str = "main"
    task: asyncio.Task[None] | None = None
    events: list[RunEvent] = field(default_factory=list)
    outcome: RunOutcome | None = None
    abort_requested: bool = False
    finishing: bool = False
    _seq: int = 0
    _done: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    def next_event(self, stream: Stream, data: dict[str, Any]) -> RunEvent:
        self._seq += 1
        event = RunEvent(self.id, self._seq, self.session_key, stream, data)
        if len(self.events) < MAX_REPLAY_EVENTS:
            self.events.append(event)
        return event

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


def new_run_id() -> str:
    return uuid.uuid4().hex


class RunRegistry:
    """Active runs, plus the most recent finished ones for `agent.wait` and late subscribers."""

    def __init__(self) -> None:
        self._runs: OrderedDict[str, Run] = OrderedDict()

    def add(self, run: Run) -> None:
        self._runs[run.id] = run
        self._trim()

    def get(self, run_id: str) -> Run | None:
        return self._runs.get(run_id)

    def active(self, session_key: str | None = None) -> list[Run]:
        return [
            r for r in self._runs.values() if not r.finished and (session_key is None or r.session_key == session_key)
        ]

    def _trim(self) -> None:
        finished = [rid for rid, r in self._runs.items() if r.finished]
        for rid in finished[: max(0, len(finished) - KEEP_FINISHED_RUNS)]:
            run = self._runs.pop(rid)
            run.events.clear()
