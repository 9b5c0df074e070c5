"""Hermes / Qwen2.5: `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, one block per call.

Qwen3-Coder wraps its XML calls in the same tags; a block whose body starts with `<function=` is read
by `qwen_xml`. A last block without its closing tag (the model stopped there) is still read."""

from __future__ import annotations

import json

from claw.providers.text_tools import qwen_xml
from claw.providers.text_tools.call import Offered, TextCall, from_object, malformed

OPEN, CLOSE = "<tool_call>", "</tool_call>"


def parse(markup: str, offered: Offered) -> tuple[list[TextCall], str]:
    """The calls in `markup` (which starts with `OPEN`) and the text around them."""
    calls: list[TextCall] = []
    rest: list[str] = []
    pos = 0
    while (start := markup.find(OPEN, pos)) >= 0:
        rest.append(markup[pos:start])
        body_at = start + len(OPEN)
        end = markup.find(CLOSE, body_at)
        body = markup[body_at:] if end < 0 else markup[body_at:end]
        pos = len(markup) if end < 0 else end + len(CLOSE)
        calls.extend(_block(body.strip(), offered))
    rest.append(markup[pos:])
    return calls, "".join(rest).strip()


def _block(body: str, offered: Offered) -> list[TextCall]:
    if body.startswith(qwen_xml.OPEN):
        return qwen_xml.parse(body, offered)[0]
    try:
        value = json.loads(body)
    except ValueError:
        return [malformed(f"{OPEN} holds no valid JSON")]
    return [from_object(value, offered)]
