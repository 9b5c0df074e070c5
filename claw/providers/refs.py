"""Model refs: `provider/model`, or a bare model name for the default `openai` provider.

OpenRouter-style model names contain slashes themselves (`anthropic/claude-…`), so
the part before the first slash is a provider only if a provider of that name is
known; otherwise the whole ref is a model of the default provider.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_PROVIDER = "openai"
BUILTIN_PROVIDERS = frozenset({"openai", "ollama", "openrouter", "vllm", "lmstudio", "llamacpp"})


@dataclass(frozen=True, slots=True)
class ModelRef:
    provider: str
    model: str

    def __str__(self) -> str:
        return f"{self.provider}/{self.model}"


def parse_model_ref(ref: str, known_providers: frozenset[str] | set[str] = BUILTIN_PROVIDERS) -> ModelRef:
    ref = ref.strip()
    head, sep, tail = ref.partition("/")
    if sep and tail and head.lower() in known_providers:
        return ModelRef(head.lower(), tail)
    return ModelRef(DEFAULT_PROVIDER, ref)
