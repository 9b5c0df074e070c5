"""Token estimates without a tokenizer download: characters divided by characters-per-token.

Four characters a token unless the model's server said otherwise: the context manager measures the
ratio with the server's own tokenizer where it has one (llama.cpp's and vLLM's `/tokenize`), else from
the last call's `usage.prompt_tokens`, and sets it for the run with `counting_at` (a context variable, so
every estimate of one run — history, pruning, compaction, the report — uses the same ratio without
threading it through each call). The model's reported usage is what the status bar shows.
"""

from __future__ import annotations

import json
from contextvars import ContextVar
from typing import Any

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4
MIN_CHARS_PER_TOKEN, MAX_CHARS_PER_TOKEN = 1.5, 8.0
"""The bounds of a measured ratio: outside them the measurement is wrong (a cut prompt), not the tokenizer."""

_chars_per_token: ContextVar[float] = ContextVar("claw_chars_per_token", default=float(CHARS_PER_TOKEN))


def chars_per_token() -> float:
    """The ratio estimates use now: the run's measured one, else 4."""
    return _chars_per_token.get()


def counting_at(ratio: float) -> None:
    """Estimate at `ratio` characters a token from now on in this context (the current run's task)."""
    _chars_per_token.set(min(MAX_CHARS_PER_TOKEN, max(MIN_CHARS_PER_TOKEN, ratio)))


def tokens_for_chars(chars: int) -> int:
    """Tokens `chars` characters take at the current ratio (rounded up)."""
    return -int(-chars // chars_per_token())


def chars_for_tokens(tokens: int) -> int:
    """Characters that fit in `tokens` tokens at the current ratio."""
    return int(tokens * chars_per_token())


def estimate_text(text: str) -> int:
    return tokens_for_chars(len(text))


def estimate_message(message: dict[str, Any]) -> int:
    tokens = MESSAGE_OVERHEAD
    content = message.get("content")
    if isinstance(content, str):
        tokens += estimate_text(content)
    elif content is not None:
        tokens += estimate_text(json.dumps(content))
    for call in message.get("tool_calls") or ():
        fn = call.get("function", {})
        tokens += estimate_text(fn.get("name", "")) + estimate_text(fn.get("arguments", ""))
    reasoning = message.get("reasoning_content")  # only with the model's sendReasoning (claw/agent/history.py)
    if isinstance(reasoning, str):
        tokens += estimate_text(reasoning)
    return tokens


def json_text(value: Any) -> str:
    """`value` as claw counts JSON (tool schemas, arguments): compact. A tokenizer sample of JSON is written
    the same way, or the spaces it adds to the characters would skew the measured ratio."""
    return json.dumps(value, separators=(",", ":"))


def estimate_json(value: Any) -> int:
    return estimate_text(json_text(value))
