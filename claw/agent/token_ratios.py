"""Characters a token, per model, as its server counts them (what `claw.agent.tokens` estimates at).

Measured once per model per gateway with the server's own tokenizer where it has one (llama.cpp's and
vLLM's `/tokenize`, on the fixed prompt: prose and JSON as the prompt mixes them), else taken from each
call's `usage.prompt_tokens` against claw's estimate of that prompt — never from a prompt the server cut.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from claw.agent.context import AssembledContext
from claw.agent.tokens import chars_per_token
from claw.providers.server_window import count_tokens
from claw.providers.truncation import looks_truncated

log = logging.getLogger(__name__)

MIN_SAMPLE_TOKENS = 200
"""A prompt smaller than this says too little about the tokenizer."""


class TokenRatios:
    """Model ref → (characters a token, how it was measured: `tokenizer` or `usage`)."""

    def __init__(self) -> None:
        self._ratios: dict[str, tuple[float, str]] = {}
        self._no_tokenizer: set[str] = set()

    def get(self, key: str) -> tuple[float, str] | None:
        return self._ratios.get(key)

    def __getitem__(self, key: str) -> tuple[float, str]:
        return self._ratios[key]

    def __contains__(self, key: object) -> bool:
        return key in self._ratios

    async def measure(self, key: str, base_url: str | None, model: str, kind: str, sample: Callable[[], str]) -> None:
        """Count `sample()` with the server's tokenizer, once per model (a server without one is not asked again)."""
        if self._measured(key) or key in self._no_tokenizer:
            return
        text = sample()
        count = await count_tokens(base_url, model, kind, text) if base_url and text else None
        if count:
            self._ratios[key] = (len(text) / count, "tokenizer")
            log.info("%s: %.2f characters a token by the server's tokenizer", key, len(text) / count)
        else:
            self._no_tokenizer.add(key)

    def from_usage(self, key: str, prompt: AssembledContext, prompt_tokens: int) -> None:
        """The ratio from what `prompt` was estimated at against the server's count of it (a server without a
        tokenizer endpoint)."""
        sent = prompt.tokens - sum(s.tokens for s in prompt.sections if s.name == "reserve")
        if self._measured(key) or prompt_tokens <= 0 or sent < MIN_SAMPLE_TOKENS:
            return
        if looks_truncated(prompt_tokens, sent):  # a cut prompt says nothing about the tokenizer
            return
        self._ratios[key] = (chars_per_token() * sent / prompt_tokens, "usage")

    def _measured(self, key: str) -> bool:
        return self._ratios.get(key, (0.0, ""))[1] == "tokenizer"
