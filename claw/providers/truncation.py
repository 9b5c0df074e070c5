"""Did the server cut the prompt? Its reported `prompt_tokens` against claw's estimate of what it sent.

claw estimates at about four characters a token; real tokenizers land within a third of that on prose
and code. A server that reports well under the estimate kept only part of the prompt: Ollama cuts at
its `num_ctx`, llama.cpp at its `-c`, silently, dropping the start (the system prompt) first.
"""

from __future__ import annotations

TRUNCATED_SHARE = 0.6
"""Reported under this share of the estimate looks cut, not merely tokenized differently."""
TRUNCATED_MIN_GAP = 300
"""…and more than this many tokens apart: a short prompt's template overhead can make any ratio."""


def looks_truncated(reported: int, estimated: int) -> bool:
    """True when the server counted far fewer prompt tokens than claw sent (0 reported: it did not say)."""
    return 0 < reported < estimated * TRUNCATED_SHARE and estimated - reported > TRUNCATED_MIN_GAP
