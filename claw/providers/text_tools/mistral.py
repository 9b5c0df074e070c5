"""Mistral: `[TOOL_CALLS][{"name": …, "arguments": {…}}, …]`, or the newer `[TOOL_CALLS]name[ARGS]{…}`."""

from __future__ import annotations

import json

from claw.providers.text_tools.call import Offered, TextCall, checked, from_object, malformed

OPEN = "[TOOL_CALLS]"
_ARGS = "[ARGS]"


def parse(markup: str, offered: Offered) -> tuple[list[TextCall], str]:
    calls: list[TextCall] = []
    for part in markup.split(OPEN)[1:]:
        part = part.strip()
        if not part:
            continue
        if part.startswith("[") or part.startswith("{"):
            calls.extend(_json_calls(part, offered))
        elif _ARGS in part:
            name, args = part.split(_ARGS, 1)
            calls.append(checked(name.strip(), args.strip(), offered))
        else:
            calls.append(malformed(f"{OPEN} is followed by neither JSON nor name{_ARGS}"))
    return calls, ""


def _json_calls(part: str, offered: Offered) -> list[TextCall]:
    try:
        value, _end = json.JSONDecoder().raw_decode(part)
    except ValueError:
        return [malformed(f"{OPEN} holds no valid JSON")]
    items = value if isinstance(value, list) else [value]
    return [from_object(item, offered) for item in items] or [malformed(f"{OPEN} holds an empty list")]
