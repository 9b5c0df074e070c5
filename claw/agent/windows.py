"""How many tokens a model's context window holds.

Looked up, in order: `[models."<provider>/<model>"] contextWindow` in config.toml (or the
bare model name there), then a short table of well-known models, then a conservative
default: a window guessed too large means overflow errors and lost turns, one guessed too
small only means earlier compaction. An explicit `contextTokens` in the agent's settings
caps whatever was found (use it to keep prompts small on purpose).
"""

from __future__ import annotations

from collections.abc import Mapping

from claw.config import AgentSettings, ModelSettings
from claw.providers.refs import ModelRef, parse_model_ref

DEFAULT_CONTEXT_WINDOW = 32_000

# Prefixes of model names, longest match wins. Local models (Ollama, llama.cpp …) are left out on
# purpose: their window is whatever the server was started with, often far below the model's maximum.
KNOWN_WINDOWS: dict[str, int] = {
    "gpt-3.5-turbo": 16_385,
    "gpt-4": 8_192,
    "gpt-4-turbo": 128_000,
    "gpt-4o": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-5": 400_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "claude-": 200_000,
    "anthropic/claude-": 200_000,
    "gemini-1.5": 1_048_576,
    "gemini-2": 1_048_576,
    "google/gemini-2": 1_048_576,
}


def model_window(ref: ModelRef | str, models: Mapping[str, ModelSettings]) -> tuple[int, str]:
    """The model's window and where the number came from (`config`, `known` or `default`)."""
    parsed = parse_model_ref(ref) if isinstance(ref, str) else ref
    for key in (str(ref), str(parsed), parsed.model):
        found = models.get(key)
        if found is not None and found.context_window:
            return found.context_window, "config"
    name = parsed.model.lower()
    matches = [prefix for prefix in KNOWN_WINDOWS if name.startswith(prefix)]
    if matches:
        return KNOWN_WINDOWS[max(matches, key=len)], "known"
    return DEFAULT_CONTEXT_WINDOW, "default"


def context_window(ref: ModelRef | str | None, settings: AgentSettings, models: Mapping[str, ModelSettings]) -> int:
    """The window to budget the prompt against for `ref` (the session's first model)."""
    window = model_window(ref, models)[0] if ref else DEFAULT_CONTEXT_WINDOW
    if "context_tokens" in settings.model_fields_set:
        window = min(window, settings.context_tokens)
    return window
