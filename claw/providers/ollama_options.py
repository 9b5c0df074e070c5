"""Ollama's `num_ctx`: the window it loads a model with, sent with each request so it never cuts the prompt.

Ollama loads a model with the `num_ctx` of its Modelfile, else its own default (2048 or 4096 tokens,
or `OLLAMA_CONTEXT_LENGTH`), and silently drops the start of any prompt longer than that: the system
prompt goes first, and the agent "forgets who it is". Its OpenAI-compatible endpoint reads the same
`options` object as its native API from the request body, so claw sends `{"options": {"num_ctx": N}}`
with N the window the prompt was budgeted against. The server reloads the model when N changes, so N
is the budget's window (steady per model), not the size of each prompt.
"""

from __future__ import annotations

from typing import Any


def is_ollama(provider: str, server_kind: str | None) -> bool:
    """An Ollama server: the `ollama` provider, or any local provider whose server answered Ollama's
    `/api/show` (`claw.providers.server_window.probe_window` said `ollama`)."""
    return provider == "ollama" or server_kind == "ollama"


def num_ctx_body(window: int, reported: int | None = None) -> dict[str, Any]:
    """The extra request body that makes Ollama run with `window` tokens, never above what it reported."""
    size = min(window, reported) if reported else window
    return {"options": {"num_ctx": size}}
