"""Qwen3-Coder: `<function=NAME><parameter=P>value</parameter>…</function>`.

Values are text; a parameter the tool's schema does not declare a string is read as JSON when it
parses (numbers, booleans, lists), as the template's own parser does."""

from __future__ import annotations

import json
import re
from typing import Any

from claw.providers.text_tools.call import Offered, TextCall, checked, malformed

OPEN = "<function="
_FUNCTION = re.compile(r"<function=([^>\s]*)>(.*?)(?:</function>|\Z)", re.S)
_PARAMETER = re.compile(r"<parameter=([^>\s]*)>(.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.S)


def parse(markup: str, offered: Offered) -> tuple[list[TextCall], str]:
    calls: list[TextCall] = []
    for match in _FUNCTION.finditer(markup):
        name, body = match.group(1), match.group(2)
        if not name:
            calls.append(malformed("<function=> names no tool"))
            continue
        schema = (offered.get(name) or {}).get("properties") or {}
        args = {p: _value(v.strip("\n"), schema.get(p)) for p, v in _PARAMETER.findall(body)}
        calls.append(checked(name, args, offered))
    leftover = _FUNCTION.sub("", markup).replace("</tool_call>", "").replace("<tool_call>", "")
    return calls, leftover.strip()


def _value(raw: str, schema: Any) -> Any:
    if isinstance(schema, dict) and schema.get("type") == "string":
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw
