"""Token estimates without a tokenizer download: about four characters a token.

Good enough for budgeting (OpenClaw's own pre-flight checks use the same
heuristic); the model's reported usage is what the status bar shows.
"""

from __future__ import annotations

import json
from typing import Any

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4


def estimate_text(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


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


def estimate_json(value: Any) -> int:
    return estimate_text(json.dumps(value, separators=(",", ":")))
