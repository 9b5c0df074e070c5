"""One model call as it is metered for the usage ledger (claw/usage), and who it is for.

The router (`claw.providers.failover.ModelRouter`) is the one place every model call passes: a chat
turn's rounds, compaction, the memory flush, a hook's completion, a subagent's and an automation's
turns. It knows the provider, the model and what streamed back, but not whose call it is. That comes
from a `CallScope` in a context variable: the runner sets it for a run (agent, session, run, source),
compaction and the memory flush narrow its `source`, and everything below reads it without any
argument being threaded through. A context variable, because each run is its own asyncio task and
a task copies the context it was created in, so concurrent runs never see each other's scope.

`metered` wraps one provider stream: it times the first token and the whole call, keeps the last
`Usage` reported, and hands a finished `ModelCall` to the observers however the call ends (done,
failed, cancelled). When the provider reported no usage the tokens are estimated from characters
(about four a token) and the call is marked `estimated`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from claw.providers.base import ModelDelta, ModelError, ReasoningDelta, TextDelta, ToolCallDelta, Usage

log = logging.getLogger(__name__)

LOCAL_CHANNELS = frozenset({"cli", "tui", "http", "ws"})
"""Channels of the operator's own clients: their runs are `chat`; any other channel's are `channel`."""
CHARS_PER_TOKEN = 4


@dataclass(frozen=True, slots=True)
class CallScope:
    """Whose model call it is: `source` is chat | channel | automation | subagent | compaction |
    memory_flush | other; `job_id` names the automation job, `channel` the channel of a channel's run."""

    agent_id: str | None = None
    session_key: str | None = None
    run_id: str | None = None
    source: str = "other"
    job_id: str | None = None
    channel: str | None = None


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One finished model call (one candidate of a failover chain is one call)."""

    started_at: float
    """Wall-clock seconds when the request was sent."""
    scope: CallScope
    provider: str
    model: str
    usage: Usage
    estimated: bool
    status: str
    """ok | error | aborted"""
    error: str | None
    first_token_ms: float | None
    total_ms: float


CallObserver = Callable[[ModelCall], None]
"""Told of every finished call, on the event loop: it must return at once (the ledger only enqueues)."""
CallGuard = Callable[[CallScope], Awaitable[None]]
"""Asked before a model call; raises (a `ClawError`) to refuse it, e.g. a budget's `stop`."""

_NO_SCOPE = CallScope()
_scope: ContextVar[CallScope | None] = ContextVar("claw_model_call_scope", default=None)


def current_scope() -> CallScope:
    return _scope.get() or _NO_SCOPE


@contextmanager
def call_scope(scope: CallScope) -> Iterator[CallScope]:
    """Model calls made inside the block (in this task, and tasks it creates) are `scope`'s."""
    token = _scope.set(scope)
    try:
        yield scope
    finally:
        _scope.reset(token)


@contextmanager
def call_source(source: str, **changes: Any) -> Iterator[CallScope]:
    """The current scope with another `source` (compaction, memory_flush) and any fields in `changes`."""
    with call_scope(replace(current_scope(), source=source, **changes)) as scope:
        yield scope


def run_scope(agent_id: str, session_key: str, run_id: str, channel: str, sender_id: str) -> CallScope:
    """The scope of an agent run, its source told from its session key and channel: an automation's run
    comes on the `cron` channel from `automation:<jobId>`, a subagent's run has a `:subagent:` key."""
    if ":subagent:" in session_key:
        return CallScope(agent_id, session_key, run_id, "subagent", channel=channel)
    if channel == "cron" and sender_id.startswith("automation:"):
        return CallScope(agent_id, session_key, run_id, "automation", sender_id.removeprefix("automation:"))
    if channel in LOCAL_CHANNELS:
        return CallScope(agent_id, session_key, run_id, "chat", channel=channel)
    return CallScope(agent_id, session_key, run_id, "channel", channel=channel)


async def metered(
    deltas: AsyncIterator[ModelDelta],
    provider: str,
    model: str,
    messages: Sequence[dict[str, Any]],
    observers: Sequence[CallObserver],
) -> AsyncIterator[ModelDelta]:
    """`deltas` unchanged; each observer is told of the call once it ends, however it ends."""
    if not observers:
        async for delta in deltas:
            yield delta
        return
    scope, wall, start = current_scope(), time.time(), time.perf_counter()
    first: float | None = None
    reported: Usage | None = None
    out_chars = 0
    status, error = "aborted", None
    try:
        async for delta in deltas:
            if isinstance(delta, Usage):
                reported = delta
            elif isinstance(delta, TextDelta | ReasoningDelta | ToolCallDelta):
                if first is None:
                    first = time.perf_counter()
                out_chars += len(delta.arguments) if isinstance(delta, ToolCallDelta) else len(delta.text)
            yield delta
        status = "ok"
    except ModelError as exc:
        status, error = "error", f"{exc.kind}: {exc.message}"
        raise
    except Exception as exc:
        status, error = "error", f"{type(exc).__name__}: {exc}"
        raise
    finally:  # also on CancelledError and GeneratorExit: an aborted call is recorded with what it had
        usage, estimated = reported, False
        if usage is None:
            sent_anything = first is not None or status != "error"
            estimated = sent_anything
            usage = Usage(_estimate(messages), _ceil_div(out_chars)) if sent_anything else Usage(0, 0)
        end = time.perf_counter()
        call = ModelCall(
            started_at=wall,
            scope=scope,
            provider=provider,
            model=model,
            usage=usage,
            estimated=estimated,
            status=status,
            error=error,
            first_token_ms=None if first is None else (first - start) * 1000,
            total_ms=(end - start) * 1000,
        )
        for observe in observers:
            try:
                observe(call)
            except Exception:  # a broken observer must not turn a reply into an error
                log.exception("a model call observer failed")


def estimated_usage(messages: Sequence[dict[str, Any]], out_chars: int) -> Usage:
    """The usage of a call that reported none: its prompt and `out_chars` characters of output, four a token."""
    return Usage(_estimate(messages), _ceil_div(out_chars))


def _estimate(messages: Sequence[dict[str, Any]]) -> int:
    """About how many tokens the prompt was: its text, four characters a token."""
    chars = 0
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
        elif isinstance(content, list):
            chars += sum(len(str(part.get("text", ""))) for part in content if isinstance(part, dict))
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict):
                chars += len(str(call.get("function", "")))
    return _ceil_div(chars)


def _ceil_div(chars: int) -> int:
    return -(-chars // CHARS_PER_TOKEN)
