"""One model response: stream it, forward text deltas as events, collect the tool calls.

Content goes through `TextCalls` (claw/agent/text_calls.py): only the reply's text is emitted and kept,
`<think>` blocks join the reasoning deltas on the thinking stream, and tool calls written as text are
read at the end of the response when it had no native ones. Native calls are put together by
`ToolCallParts` (claw/agent/tool_call_parts.py), which survives the servers that number them oddly.
A response that reported no usage gets an estimate from its characters, marked `estimated`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from claw.agent.partial_reply import PartialReply
from claw.agent.text_calls import TextCalls, ToolCall
from claw.agent.tool_call_parts import ToolCallParts
from claw.agent.turn import Emit
from claw.providers.base import ModelError, ReasoningDelta, TextDelta, ToolCallDelta, Usage
from claw.providers.failover import ModelRouter
from claw.providers.metering import estimated_usage
from claw.vocab import run_event
from claw.vocab.run_event import Stream

__all__ = ["ModelTurn", "ToolCall"]


def _auto(_ref: str) -> str:
    return "auto"


@dataclass(slots=True)
class ModelTurn:
    """What one model call produced so far; `text` is kept even if the call is aborted midway.

    With `partial`, the text is also saved to the transcript as it streams, each piece before its event
    goes out: whatever a client has been shown, the transcript has, but for the last few KB or second."""

    model: str | None = None
    parts: list[str] = field(default_factory=list)
    thinking_parts: list[str] = field(default_factory=list)
    native: ToolCallParts = field(default_factory=ToolCallParts)
    text_calls: list[ToolCall] = field(default_factory=list)
    """Calls read from the reply's text (only when the response had no native ones)."""
    usage: Usage = Usage(0, 0)
    estimated: bool = False
    """The provider reported no usage: `usage` is estimated from characters (claw/providers/metering.py)."""
    finish_reason: str | None = None
    partial: PartialReply | None = None
    tool_format: Callable[[str], str] = _auto
    """A model ref's `toolCallFormat` (auto | native | a format's name, claw/agent/text_calls.py)."""

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def thinking(self) -> str:
        """The reasoning the model streamed beside the reply (empty when it sent none)."""
        return "".join(self.thinking_parts)

    @property
    def calls(self) -> dict[int, dict[str, str]]:
        """The native tool calls so far, by position."""
        return self.native.calls

    def tool_calls(self) -> list[ToolCall]:
        if not self.calls:
            return list(self.text_calls)
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

        content: TextCalls | None = None
        reported = False
        out_chars = 0
        async for ref, delta in router.stream(chain, messages, tools, on_failover):
            self.model = ref
            if isinstance(delta, TextDelta):
                if content is None:  # failover happens before any output: this is the answering model
                    content = TextCalls(self.tool_format(ref), tools)
                out_chars += len(delta.text)
                self._show(*content.feed(delta.text), emit)
            elif isinstance(delta, ReasoningDelta):
                out_chars += len(delta.text)
                self._show("", delta.text, emit)
            elif isinstance(delta, ToolCallDelta):
                out_chars += len(delta.arguments) + len(delta.name or "")
                self.native.add(delta)
            elif isinstance(delta, Usage):
                self.usage, reported = delta, True
            else:
                self.finish_reason = delta.reason
        if content is not None:
            reply, thinking, self.text_calls = content.finish(
                native_calls=bool(self.calls), truncated=self.finish_reason == "length"
            )
            self._show(reply, thinking, emit)
        if not reported:
            self.usage, self.estimated = estimated_usage(messages, out_chars), True

    def _show(self, reply: str, thinking: str, emit: Emit) -> None:
        """Keep and emit what the content filter released: thinking first (it came before the reply)."""
        if thinking:
            self.thinking_parts.append(thinking)
            emit(Stream.THINKING, run_event.thinking(thinking))
        if reply:
            self.parts.append(reply)
            if self.partial is not None:
                self.partial.add(reply)
            emit(Stream.ASSISTANT, run_event.delta(reply))
