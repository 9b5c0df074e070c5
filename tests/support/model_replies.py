"""What the scripted model server answers with, and how a reply is written on the wire.

Tests build replies with the functions here (``text``, ``tool_calls``, ``error``, ...) and queue them
with ``ScriptedModelServer.script``; import them from ``tests.support.model_server``, which re-exports
them. ``ChatTurn`` turns one reply into ``chat.completion.chunk`` SSE frames or a ``chat.completion``;
``embed`` is the deterministic embedding the server computes for ``/v1/embeddings``.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

# ----------------------------------------------------------------------------- replies


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts reported for one reply. Unset, the server estimates them (about 4 chars a token)."""

    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int | None = None  # set: sent as prompt_tokens_details.cached_tokens (part of prompt_tokens)
    cache_write_tokens: int | None = None  # set: prompt_tokens_details.cache_write_tokens
    reasoning_tokens: int | None = None  # set: completion_tokens_details.reasoning_tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }
        prompt = {name: value for name, value in (("cached_tokens", self.cached_tokens),
                                                  ("cache_write_tokens", self.cache_write_tokens))
                  if value is not None}
        if prompt:
            out["prompt_tokens_details"] = prompt
        if self.reasoning_tokens is not None:
            out["completion_tokens_details"] = {"reasoning_tokens": self.reasoning_tokens}
        return out


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call in an assistant reply; ``arguments`` is the JSON text the model emits (maybe invalid)."""

    name: str
    arguments: str
    id: str | None = None  # None: the server assigns "call_<request no>_<index>"


@dataclass(frozen=True, slots=True)
class Completion:
    """A successful assistant reply: text, tool calls, or text followed by tool calls."""

    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    chunk: int | None = None  # characters per content delta; None = one word (with its spacing) per delta
    args_pieces: int = 3  # each tool call's arguments are streamed in this many deltas (fewer if short)
    delay_per_chunk: float = 0.0  # seconds slept before each streamed frame after the role delta
    hang: bool = False  # after streaming `content`, stall until the client leaves or the server stops
    finish_reason: str | None = None  # None: "tool_calls" when there are tool calls, else "stop"
    usage: Usage | None = None
    report_usage: bool = True  # False: no usage chunk even when asked for (a server that never reports it)
    reasoning: str = ""  # streamed before the content as `reasoning_field` deltas (DeepSeek, vLLM, Ollama)
    reasoning_field: str = "reasoning_content"  # or "reasoning" (vLLM's newer name, Ollama's)
    sse: bool = True  # False: a streaming request gets one chat.completion body (a server ignoring `stream`)


@dataclass(frozen=True, slots=True)
class Failure:
    """An HTTP error answered with OpenAI's error body ``{"error": {"message", "type", "param", "code"}}``."""

    status: int
    message: str
    type: str
    code: str | None = None
    param: str | None = None
    headers: tuple[tuple[str, str], ...] = ()

    def body(self) -> dict[str, Any]:
        return {"error": {"message": self.message, "type": self.type, "param": self.param, "code": self.code}}


Reply = Completion | Failure
Responder = Callable[["RecordedRequest"], Reply]

_ERROR_TYPES = {400: "invalid_request_error", 401: "invalid_request_error", 403: "permission_error",
                404: "invalid_request_error", 429: "rate_limit_error"}


def text(content: str, *, chunk: int | None = None, delay_per_chunk: float = 0.0,
         usage: Usage | None = None, finish_reason: str = "stop") -> Completion:
    """A text reply, streamed as word-sized content deltas (or ``chunk`` characters each)."""
    return Completion(content=content, chunk=chunk, delay_per_chunk=delay_per_chunk, usage=usage,
                      finish_reason=finish_reason)


def tool_calls(calls: Iterable[ToolCall | tuple[Any, ...]], *, text: str = "", args_pieces: int = 3,
               usage: Usage | None = None) -> Completion:
    """One reply holding several tool calls, each ``(name, args)`` or ``(name, args, id)`` or a ToolCall.

    ``args`` is a dict (sent as JSON) or a string sent verbatim, e.g. to script malformed JSON.
    ``text`` is streamed before the calls, as some models do.
    """
    built = tuple(call if isinstance(call, ToolCall) else _tool_call(*call) for call in calls)
    return Completion(content=text, tool_calls=built, args_pieces=args_pieces, usage=usage)


def tool_call(name: str, args: dict[str, Any] | str, *, id: str | None = None, text: str = "") -> Completion:
    """A reply with exactly one tool call."""
    return tool_calls([(name, args, id)], text=text)


def error(status: int = 500, message: str = "The server had an error while processing your request.", *,
          type: str | None = None, code: str | None = None, param: str | None = None,
          headers: dict[str, str] | None = None) -> Failure:
    """An HTTP error reply; e.g. ``error(429, "slow down", headers={"retry-after": "0"})``."""
    kind = type or _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return Failure(status, message, kind, code, param, tuple((headers or {}).items()))


def overflow(message: str = "This model's maximum context length is 8192 tokens. However, your messages "
                            "resulted in 9001 tokens. Please reduce the length of the messages.") -> Failure:
    """The 400 an endpoint answers when the prompt exceeds the model's context window."""
    return error(400, message, code="context_length_exceeded", param="messages")


def thinking(reasoning: str, content: str = "", *, field: str = "reasoning_content", chunk: int | None = None,
             calls: Iterable[ToolCall | tuple[Any, ...]] = ()) -> Completion:
    """A reply whose `reasoning` streams first in `field` deltas, then `content` (and any tool `calls`)."""
    built = tuple(call if isinstance(call, ToolCall) else _tool_call(*call) for call in calls)
    return Completion(content=content, tool_calls=built, chunk=chunk, reasoning=reasoning, reasoning_field=field)


def hang(text: str = "") -> Completion:
    """Send headers and ``text``, then stall until the client disconnects or the server stops."""
    return Completion(content=text, hang=True)


def slow(text: str, delay_per_chunk: float = 0.05, *, chunk: int | None = None) -> Completion:
    """A text reply that sleeps ``delay_per_chunk`` seconds before each delta (for abort tests)."""
    return Completion(content=text, chunk=chunk, delay_per_chunk=delay_per_chunk)


def _tool_call(name: str, args: dict[str, Any] | str, id: str | None = None) -> ToolCall:
    return ToolCall(name, args if isinstance(args, str) else json.dumps(args), id)


# ----------------------------------------------------------------------------- embeddings


def embed(text: str, dimensions: int = 256) -> list[float]:
    """The server's embedding: a hashed bag of lower-cased words, L2-normalised.

    Texts sharing words get a positive cosine similarity; unrelated texts are near zero. A text with
    no words maps to the first unit vector, so every vector has length 1.
    """
    vector = [0.0] * dimensions
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
        vector[int.from_bytes(digest, "little") % dimensions] += 1.0
    norm = math.sqrt(sum(value * value for value in vector))
    if norm == 0.0:
        vector[0] = 1.0
        return vector
    return [value / norm for value in vector]


def embedding_inputs(raw: Any) -> list[str]:
    """The texts of an embeddings request's ``input``: a string, strings, or token-id lists."""
    items = raw if isinstance(raw, list) and raw and not isinstance(raw[0], int) else [raw]
    return [item if isinstance(item, str) else " ".join(f"t{token}" for token in item) for item in items]


# ----------------------------------------------------------------------------- records


@dataclass(slots=True)
class RecordedRequest:
    """One request as the server received it. Timestamps are ``time.perf_counter()`` values."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased
    body: dict[str, Any]
    received_at: float  # when the handler started, before the body was read
    first_byte_at: float | None = None  # when the first response bytes were written (streams only)
    finished_at: float | None = None  # when a chat handler ended, however it ended (client gone too)
    index: int = 0  # position in the server's records
    finished: threading.Event = field(default_factory=threading.Event, repr=False, compare=False)

    def wait_finished(self, timeout: float = 30.0) -> float:
        """``finished_at``, once the handler has ended. A client can read the reply's last byte before the
        server's loop gets back to the handler that wrote it, so read the end stamps through this."""
        if not self.finished.wait(timeout):
            raise TimeoutError(f"request {self.index} to {self.path} still running after {timeout}s")
        assert self.finished_at is not None
        return self.finished_at

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def tools(self) -> list[dict[str, Any]]:
        return list(self.body.get("tools", []))

    @property
    def tool_names(self) -> list[str]:
        return [tool.get("function", {}).get("name", "") for tool in self.tools]

    @property
    def model(self) -> str | None:
        return self.body.get("model")

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))


# ----------------------------------------------------------------------------- wire format


def _split_text(content: str, chunk: int | None) -> list[str]:
    if not content:
        return []
    if chunk is None:
        return re.findall(r"\S+\s*|\s+", content)
    return [content[i:i + chunk] for i in range(0, len(content), max(1, chunk))]


def _split_even(value: str, pieces: int) -> list[str]:
    count = max(1, min(pieces, len(value)))
    size = math.ceil(len(value) / count) if value else 1
    return [value[i:i + size] for i in range(0, len(value), size)] or [""]


def estimate_tokens(value: Any) -> int:
    """A deterministic stand-in for a tokenizer: about four characters a token, at least one."""
    return max(1, len(value if isinstance(value, str) else json.dumps(value)) // 4)


@dataclass(slots=True)
class ChatTurn:
    """What one chat request is answered with: the reply plus the per-request identifiers."""

    reply: Completion
    request: RecordedRequest
    created: int = field(default_factory=lambda: int(time.time()))

    @property
    def id(self) -> str:
        return f"chatcmpl-{self.request.index}"

    @property
    def model(self) -> str:
        return self.request.model or "test-model"

    def calls(self) -> list[ToolCall]:
        return [call if call.id else replace(call, id=f"call_{self.request.index}_{n}")
                for n, call in enumerate(self.reply.tool_calls)]

    def finish_reason(self) -> str:
        return self.reply.finish_reason or ("tool_calls" if self.reply.tool_calls else "stop")

    def usage(self) -> Usage:
        if self.reply.usage is not None:
            return self.reply.usage
        completion = self.reply.content + "".join(c.name + c.arguments for c in self.reply.tool_calls)
        body = self.request.body
        return Usage(estimate_tokens([body.get("messages"), body.get("tools")]), estimate_tokens(completion))

    def deltas(self) -> Iterator[dict[str, Any]]:
        """The content and tool-call deltas, in order (the role delta and finish chunk excluded)."""
        for piece in _split_text(self.reply.reasoning, self.reply.chunk):
            yield {self.reply.reasoning_field: piece}
        for piece in _split_text(self.reply.content, self.reply.chunk):
            yield {"content": piece}
        for index, call in enumerate(self.calls()):
            function = {"name": call.name, "arguments": ""}
            yield {"tool_calls": [{"index": index, "id": call.id, "type": "function", "function": function}]}
            for piece in _split_even(call.arguments, self.reply.args_pieces):
                yield {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}

    @property
    def include_usage(self) -> bool:
        return bool((self.request.body.get("stream_options") or {}).get("include_usage"))

    def frames(self) -> list[bytes]:
        """The SSE frames of the streamed reply. A hanging reply stops after its text, unfinished."""
        frames = [self._chunk({"role": "assistant", "content": ""})]
        frames += [self._chunk(d) for d in self.deltas() if not self.reply.hang or "content" in d]
        if self.reply.hang:
            return frames
        frames.append(self._chunk({}, self.finish_reason()))
        if self.include_usage and self.reply.report_usage:
            frames.append(self._chunk(None, usage=self.usage()))
        frames.append(b"data: [DONE]\n\n")
        return frames

    def _chunk(self, delta: dict[str, Any] | None, finish: str | None = None,
               usage: Usage | None = None) -> bytes:
        payload: dict[str, Any] = {
            "id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model,
            "choices": [] if delta is None else
            [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        }
        if self.include_usage:  # as OpenAI does: "usage": null on every chunk but the last
            payload["usage"] = usage.as_dict() if usage else None
        return b"data: " + json.dumps(payload).encode() + b"\n\n"

    def completion(self) -> dict[str, Any]:
        content = self.reply.content or None
        message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
        if self.reply.reasoning:
            message[self.reply.reasoning_field] = self.reply.reasoning
        if self.reply.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.calls()
            ]
        return {
            "id": self.id, "object": "chat.completion", "created": self.created, "model": self.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": self.finish_reason()}
            ],
            "usage": self.usage().as_dict(),
        }


