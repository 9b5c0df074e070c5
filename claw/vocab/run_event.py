"""`RunEvent` and its vocabulary: what every client receives while a run goes, and what `--json` prints.

Every stream, phase and state a run can emit is declared here, once, with one constructor per event's
`data`; emitters call the constructors and consumers compare against the enums. The enums are
`StrEnum`s, so an event built here serialises to exactly the strings a client has always seen, and an
event read back from the wire (plain strings) compares equal to them. The docs' `--json` paragraph (docs/cli.md)
lists the same phases (tests/vocab/test_run_event_vocabulary.py keeps the two in step).

This module imports nothing of claw: the runtime (claw/agent) emits through it without depending on the core.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Stream(StrEnum):
    LIFECYCLE = "lifecycle"
    ASSISTANT = "assistant"
    TOOL = "tool"
    THINKING = "thinking"


class Phase(StrEnum):
    """`data["phase"]` of a lifecycle event: `accepted` first (then `spawned` for a subagent's run),
    `start` once the run has its lanes, any of the middle ones while it goes, and one terminal phase last."""

    ACCEPTED = "accepted"
    SPAWNED = "spawned"
    START = "start"
    STEERED = "steered"
    FAILOVER = "failover"
    MEMORY_FLUSH = "memory_flush"
    COMPACTION = "compaction"
    SUBAGENT = "subagent"
    BUDGET = "budget"
    WARNING = "warning"
    END = "end"
    ERROR = "error"
    ABORTED = "aborted"


class ToolPhase(StrEnum):
    """`data["phase"]` of a tool event: every call starts, then has a result."""

    START = "start"
    RESULT = "result"


class State(StrEnum):
    """`data["state"]` of a `compaction` or `memory_flush` event (start, then end or error) or a `subagent` one."""

    START = "start"
    END = "end"
    ERROR = "error"
    SPAWNED = "spawned"


TERMINAL_PHASES = frozenset({Phase.END, Phase.ERROR, Phase.ABORTED})
"""Exactly one of these ends every run."""

NO_MODEL = "no_model"
"""The `code` of an `error` event when no model is configured: the user, not the run, must act."""
TRUNCATED_LENGTH = "length"
"""`truncated` of an `end` event whose reply the model's output limit cut short (`finish_reason: length`)."""
TRUNCATED_NOTE = '(the reply was cut off by the output limit of the model; send "continue" to have it go on)'
"""The line clients show under such a reply."""


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True, slots=True)
class RunEvent:
    """One event of a run: OpenClaw's `agent` event payload (`to_wire`), in the run's `seq` order."""

    run_id: str
    seq: int
    session_key: str
    stream: Stream
    data: dict[str, Any]
    ts: int = field(default_factory=now_ms)
    """When it happened, in ms since the epoch."""
    agent_id: str | None = None
    session_id: str | None = None
    """The transcript's id, from the run's `start` on."""

    @property
    def phase(self) -> str | None:
        return self.data.get("phase") if self.stream in (Stream.LIFECYCLE, Stream.TOOL) else None

    @property
    def is_terminal(self) -> bool:
        return self.stream == Stream.LIFECYCLE and self.data.get("phase") in TERMINAL_PHASES

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "runId": self.run_id,
            "seq": self.seq,
            "stream": self.stream,
            "ts": self.ts,
            "sessionKey": self.session_key,
            "data": self.data,
        }
        if self.agent_id is not None:
            wire["agentId"] = self.agent_id
        if self.session_id is not None:
            wire["sessionId"] = self.session_id
        return wire

    def to_json(self) -> str:
        return json.dumps(self.to_wire(), ensure_ascii=False)

    @classmethod
    def from_wire(cls, raw: dict[str, Any]) -> RunEvent:
        ts = raw.get("ts")
        return cls(
            raw["runId"], int(raw["seq"]), raw["sessionKey"], raw["stream"], dict(raw["data"]),
            int(ts) if isinstance(ts, int | float) else now_ms(), raw.get("agentId"), raw.get("sessionId"),
        )  # fmt: skip


CUMULATIVE_TEXT_MAX_CHARS = 32_768
"""Beyond this, an assistant message's events carry `delta` only (clients join the deltas): the
cumulative `text` costs its whole length per event, so without a cap a long reply would cost the square."""


class CumulativeText:
    """Adds OpenClaw's cumulative `text` beside each assistant `delta` of the runs it is shown, in order.

    Computed where a stream of events is written out (each WebSocket connection, `--json`), not stored
    in the events, which a run keeps for replay. A tool call starts a new assistant message (the text
    starts again, as OpenClaw's does); the terminal event forgets the run."""

    def __init__(self) -> None:
        self._text: dict[str, str | None] = {}

    def wire(self, event: RunEvent) -> dict[str, Any]:
        wire = event.to_wire()
        delta = event.data.get("delta")
        if event.stream == Stream.ASSISTANT and isinstance(delta, str):
            before = self._text.get(event.run_id, "")
            text = None if before is None or len(before) + len(delta) > CUMULATIVE_TEXT_MAX_CHARS else before + delta
            self._text[event.run_id] = text
            if text is not None:
                wire["data"] = {**event.data, "text": text}
        elif event.stream == Stream.TOOL or event.is_terminal:
            self._text.pop(event.run_id, None)
        return wire

    def json(self, event: RunEvent) -> str:
        return json.dumps(self.wire(event), ensure_ascii=False)


# -- lifecycle data, in phase order -------------------------------------------------------------------


def accepted(
    agent_id: str,
    *,
    channel: str | None = None,
    message: str | None = None,
    sender: str | None = None,
    system_event: bool = False,
) -> dict[str, Any]:
    """The gateway took the message; the run waits for its lanes. Where it came from (`channel`, the
    `sender`'s name), what was sent (`message`, as typed) and whether it is a note from the system
    (an automation, a subagent's report): a client following the whole session (`EventBus.subscribe_session`)
    shows a turn another client started from this alone."""
    data: dict[str, Any] = {"phase": Phase.ACCEPTED, "agentId": agent_id}
    if channel is not None:
        data["channel"] = channel
    if message is not None:
        data["message"] = message
    if sender:
        data["sender"] = sender
    if system_event:
        data["systemEvent"] = True
    return data


def spawned(parent_run_id: str, parent_session_key: str, depth: int, label: str | None, task: str) -> dict[str, Any]:
    """A subagent's own run: who started it and with what task (the console draws the tree from it)."""
    return {
        "phase": Phase.SPAWNED,
        "parentRunId": parent_run_id,
        "parentSessionKey": parent_session_key,
        "depth": depth,
        "label": label,
        "task": task,
    }


def started(model: str, session_id: str, agent_id: str) -> dict[str, Any]:
    """The run has its lanes and begins its first model call, on `model`."""
    return {"phase": Phase.START, "model": model, "sessionId": session_id, "agentId": agent_id}


def steered(run_id: str, text: str) -> dict[str, Any]:
    """The queued message of run `run_id` joined this turn (steer mode)."""
    return {"phase": Phase.STEERED, "runId": run_id, "text": text}


def failover(from_ref: str, to_ref: str, reason: str) -> dict[str, Any]:
    """Model `from_ref` failed with `reason`; the call goes on with `to_ref`."""
    return {"phase": Phase.FAILOVER, "from": from_ref, "to": to_ref, "reason": reason}


def memory_flush_started(tokens: int) -> dict[str, Any]:
    """The prompt (`tokens` long) nears the limit: the model may write durable notes first."""
    return {"phase": Phase.MEMORY_FLUSH, "state": State.START, "tokens": tokens}


def memory_flush_ended(wrote: str | None, error: str | None) -> dict[str, Any]:
    """`wrote`: the file the notes went to, if any; `error`: why the flush failed (the turn goes on)."""
    return {"phase": Phase.MEMORY_FLUSH, "state": State.END, "wrote": wrote, "error": error}


def compaction_started(reason: str, tokens_before: int) -> dict[str, Any]:
    """The older history is being summarised (`reason`: threshold | overflow | manual)."""
    return {"phase": Phase.COMPACTION, "state": State.START, "reason": reason, "tokensBefore": tokens_before}


def compaction_ended(result: Mapping[str, Any]) -> dict[str, Any]:
    """`result`: the compaction's wire form (`CompactionResult.to_json()`: tokensBefore, tokensAfter, …)."""
    return {"phase": Phase.COMPACTION, "state": State.END, **result}


def compaction_failed(reason: str, message: str) -> dict[str, Any]:
    return {"phase": Phase.COMPACTION, "state": State.ERROR, "reason": reason, "message": message}


def subagent_spawned(child_run_id: str, child_session_key: str) -> dict[str, Any]:
    """In the parent's run: it started a child."""
    return {
        "phase": Phase.SUBAGENT,
        "state": State.SPAWNED,
        "childRunId": child_run_id,
        "childSessionKey": child_session_key,
    }


def budget_warning(budget: str, limit: str, period: str, message: str) -> dict[str, Any]:
    """A `warn` budget's limit was reached before one of the run's model calls; the run goes on. `budget`
    e.g. `agent main` or `job digest`, `limit` e.g. `dailyCost`, `period` `2026-12-01` or `2026-12`;
    `message` is the one line to show. Given once per budget, limit and period (claw/usage/budgets.py)."""
    return {"phase": Phase.BUDGET, "budget": budget, "limit": limit, "period": period, "message": message}


def truncation_warning(model: str | None, reported: int, estimated: int, window: int, message: str) -> dict[str, Any]:
    """The server counted far fewer prompt tokens (`reported`) than claw sent (`estimated`, budgeted against
    `window`): it probably cut the prompt's start. `message` is the one line to show; given once per session."""
    return {
        "phase": Phase.WARNING,
        "kind": "truncation",
        "model": model,
        "reportedTokens": reported,
        "estimatedTokens": estimated,
        "window": window,
        "message": message,
    }


def waiting(message: str) -> dict[str, Any]:
    """A tool call waits before it can run (an MCP server still starting: `message` says which); the run
    goes on."""
    return {"phase": Phase.WARNING, "kind": "waiting", "message": message}


def end(text: str, usage: Mapping[str, int], **detail: Any) -> dict[str, Any]:
    """The reply; `detail` e.g. `steeredInto` (the run the message joined instead)."""
    return {"phase": Phase.END, "text": text, "usage": usage, **detail}


def error(message: str | None, **detail: Any) -> dict[str, Any]:
    """Why the run failed, for the user; `detail` e.g. `code=NO_MODEL`."""
    return {"phase": Phase.ERROR, "message": message, **detail}


def aborted(**detail: Any) -> dict[str, Any]:
    """Stopped (or dropped from the queue: `detail` has the `reason`)."""
    return {"phase": Phase.ABORTED, **detail}


# -- assistant and tool data ----------------------------------------------------------------------------


def delta(text: str) -> dict[str, Any]:
    """A piece of the reply as it streams."""
    return {"delta": text}


def thinking(text: str) -> dict[str, Any]:
    """A piece of the model's reasoning as it streams: shown apart (collapsed), never part of the reply."""
    return {"delta": text}


def tool_started(call_id: str, name: str, args: Any) -> dict[str, Any]:
    """`args`: the call's arguments, parsed from JSON when they parse."""
    return {"phase": ToolPhase.START, "toolCallId": call_id, "name": name, "args": args}


def tool_result(call_id: str, name: str, is_error: bool, result: str) -> dict[str, Any]:
    return {"phase": ToolPhase.RESULT, "toolCallId": call_id, "name": name, "isError": is_error, "result": result}
