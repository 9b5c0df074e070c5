"""One model response: stream it, forward text deltas as events, collect the tool calls."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from claw.agent.partial_reply import PartialReply
from claw.agent.turn import Emit
from claw.gateway import run_event  # the run-event vocabulary: a leaf module, the runtime's one use of the core
from claw.gateway.run_event import Stream
from claw.providers.base import ModelError, ReasoningDelta, TextDelta, ToolCallDelta, Usage
from claw.providers.failover import ModelRouter


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str

    def to_entry(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(slots=True)
class ModelTurn:
    """What one model call produced so far; `text` is kept even if the call is aborted midway.

    With `partial`, the text is also saved to the transcript as it streams, each piece before its event
    goes out: whatever a client has been shown, the transcript has, but for the last few KB or second."""

    model: str | None = None
    parts: list[str] = field(default_factory=list)
    thinking_parts: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    usage: Usage = Usage(0, 0)
    finish_reason: str | None = None
    partial: PartialReply | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def thinking(self) -> str:
        """The reasoning the model streamed beside the reply (empty when it sent none)."""
        return "".join(self.thinking_parts)

    def tool_calls(self) -> list[ToolCall]:
        out = []
        for index in sorted(self.calls):
            call = self.calls[index]
            if not call["name"]:
                raise ModelError("other", "the model sent a tool call without a name")
            out.append(ToolCall(call["id"] or f"call_{index}", call["name"], call["arguments"] or "{}"))
        return out

    def close(self) -> None:
        """The call ended, complete or not: no more partial saves (the entry written next supersedes them)."""
        if self.partial is not None:
            self.partial.close()

    async def stream(
        self,
        router: ModelRouter,
        chain: list[str],
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        emit: Emit,
    ) -> None:
        async def on_failover(from_ref: str, to_ref: str, error: ModelError) -> None:
            emit(Stream.LIFECYCLE, run_event.failover(from_ref, to_ref, error.message))

        async for ref, delta in router.stream(chain, messages, tools, on_failover):
            self.model = ref
            if isinstance(delta, TextDelta):
                self.parts.append(delta.text)
                if self.partial is not None:
                    self.partial.add(delta.text)
                emit(Stream.ASSISTANT, run_event.delta(delta.text))
            elif isinstance(delta, ReasoningDelta):
                self.thinking_parts.append(delta.text)
                emit(Stream.THINKING, run_event.thinking(delta.text))
            elif isinstance(delta, ToolCallDelta):
                call = self.calls.setdefault(delta.index, {"id": "", "name": "", "arguments": ""})
                call["id"] = call["id"] or (delta.id or "")
                call["name"] = call["name"] or (delta.name or "")
                call["arguments"] += delta.arguments
            elif isinstance(delta, Usage):
                self.usage = delta
            else:
                self.finish_reason = delta.reason
