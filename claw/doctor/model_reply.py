"""One streamed reply as `claw doctor model` sees it: text, reasoning, tool calls, usage and timings.

The request goes through claw's own provider (`OpenAICompatProvider`, the real `openai` client), with
the extra body a turn would carry (Ollama's `num_ctx`), so the doctor tries exactly what a turn sends.
Content passes through the text tool-call filter (`claw.providers.text_tools.stream.TextStream`) as a
turn's would: `<think>` blocks and tool markup written as text are told apart from the reply.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from claw.agent.tool_call_parts import ToolCallParts
from claw.providers.base import ChatRequest, ModelProvider, ReasoningDelta, TextDelta, ToolCallDelta, Usage
from claw.providers.text_tools.call import TextCall
from claw.providers.text_tools.calls import detected_format, parse_markup
from claw.providers.text_tools.stream import TextStream


@dataclass(slots=True)
class Reply:
    """What one streamed call produced; times in seconds from the request."""

    text: str = ""
    reasoning: str = ""
    """From `reasoning_content` / `reasoning` deltas."""
    think: str = ""
    """From `<think>` blocks in the content."""
    markup: str = ""
    """Tool markup the model wrote as text (held back from `text`)."""
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    """The native tool calls by position, put together as a turn does (`ToolCallParts`)."""
    usage: Usage | None = None
    chunks: int = 0
    first_s: float | None = None
    total_s: float = 0.0

    @property
    def empty(self) -> bool:
        return not (self.text or self.reasoning or self.think or self.markup or self.calls)

    def text_calls(self, offered: Mapping[str, Mapping[str, Any]]) -> tuple[str, list[TextCall]] | None:
        """`(format, calls)` of the tool calls written as text, or None when there are none."""
        parsed = parse_markup(self.markup, offered) if self.markup else None
        if not parsed or not parsed[0]:
            return None
        return detected_format(self.markup), parsed[0]

    def output_tokens(self) -> tuple[int, bool]:
        """Tokens of the reply and whether they are estimated (the server reported no usage)."""
        if self.usage is not None and self.usage.output_tokens:
            return self.usage.output_tokens, False
        chars = len(self.text) + len(self.reasoning) + len(self.think) + len(self.markup)
        chars += sum(len(c["arguments"]) for c in self.calls.values())
        return max(1, -(-chars // 4)), True

    def tokens_per_second(self) -> float:
        """Output tokens over the time they streamed in (the whole call when that was too quick to time)."""
        tokens, _ = self.output_tokens()
        streaming = self.total_s - (self.first_s or 0.0)
        return tokens / max(streaming if streaming > 0.05 else self.total_s, 1e-6)

    def prompt_tokens_per_second(self) -> float | None:
        """The server's prompt processing speed: its prompt tokens over the time to the first token."""
        if self.usage is None or not self.usage.input_tokens or not self.first_s:
            return None
        return self.usage.input_tokens / max(self.first_s, 1e-6)


async def stream_reply(  # noqa: ASYNC109 (one limit for the whole call, as the doctor's lines state it)
    provider: ModelProvider, request: ChatRequest, timeout: float
) -> Reply:
    """Stream `request` to its end; raises `ModelError` as a turn's call would, `TimeoutError` after `timeout`."""
    native = ToolCallParts()
    reply = Reply(calls=native.calls)
    text = TextStream("auto", tools=bool(request.tools))
    parts: list[str] = []
    think: list[str] = []
    start = time.perf_counter()
    async with asyncio.timeout(timeout):
        async for delta in provider.stream(request):
            reply.chunks += 1
            if isinstance(delta, TextDelta | ReasoningDelta | ToolCallDelta) and reply.first_s is None:
                reply.first_s = time.perf_counter() - start
            if isinstance(delta, TextDelta):
                shown, thought = text.feed(delta.text)
                parts.append(shown)
                think.append(thought)
            elif isinstance(delta, ReasoningDelta):
                reply.reasoning += delta.text
            elif isinstance(delta, ToolCallDelta):
                native.add(delta)  # servers number and repeat calls oddly; a turn would read them this way
            elif isinstance(delta, Usage):
                reply.usage = delta
    shown, thought = text.finish()
    reply.text, reply.think, reply.markup = "".join([*parts, shown]), "".join([*think, thought]), text.held
    reply.total_s = time.perf_counter() - start
    return reply
