"""The `ModelProvider` boundary: a streaming chat-completions call and its typed deltas and errors."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from claw.errors import ClawError


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    """A piece of the model's reasoning, kept apart from the reply: `reasoning_content` / `reasoning`
    deltas (DeepSeek, vLLM's reasoning parsers, Ollama) or a `<think>` block in the content."""

    text: str


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A fragment of one tool call; `index` ties fragments of the same call together (None: the server sent
    none, claw/agent/tool_call_parts.py decides which call it belongs to)."""

    index: int | None
    id: str | None
    name: str | None
    arguments: str


@dataclass(frozen=True, slots=True)
class Usage:
    """Tokens of one call as the provider reports them. `input_tokens` includes the cached (read) and
    cache-write tokens, and `output_tokens` the reasoning tokens, as OpenAI counts them."""

    input_tokens: int
    output_tokens: int
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass(frozen=True, slots=True)
class Finish:
    reason: str | None


ModelDelta = TextDelta | ReasoningDelta | ToolCallDelta | Usage | Finish

ErrorKind = Literal["rate_limit", "server", "timeout", "connection", "auth", "overflow", "bad_request", "other"]

FAILOVER_KINDS: frozenset[str] = frozenset({"rate_limit", "server", "timeout", "connection", "auth"})


class ModelError(ClawError):
    """A model call failed; `kind` decides whether to fail over, compact, or give up."""

    def __init__(self, kind: ErrorKind, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.status = status

    @property
    def fails_over(self) -> bool:
        return self.kind in FAILOVER_KINDS


@dataclass(frozen=True, slots=True)
class ChatRequest:
    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    reasoning: Literal["off", "low", "high"] | None = None
    """The session's `/think` level; None: ask for none (claw/providers/reasoning_switch.py)."""
    extra_body: Mapping[str, Any] | None = None
    """Fields added to the request body as they are, for one server's own knobs (Ollama's `options.num_ctx`)."""


class ModelProvider(Protocol):
    """An endpoint that streams chat completions."""

    name: str

    def stream(self, request: ChatRequest) -> AsyncIterator[ModelDelta]: ...
