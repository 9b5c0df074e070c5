"""`TextCall`: one tool call parsed from text, or why it could not be."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

Offered = Mapping[str, Mapping[str, Any]]
"""The offered tools: name → JSON schema of its parameters."""


@dataclass(frozen=True, slots=True)
class TextCall:
    """`arguments` is JSON text; `error` set: the call is answered with it as a tool error, not run."""

    name: str
    arguments: str
    error: str | None = None


INVALID_NAME = "invalid_tool_call"


def checked(name: object, arguments: object, offered: Offered) -> TextCall:
    """A call to `name` with `arguments` (a dict, or JSON text), an error unless the tool was offered."""
    if not isinstance(name, str) or not name:
        return TextCall(INVALID_NAME, "{}", "the tool call has no tool name")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return TextCall(name, "{}", f"the arguments of the call to {name} are not valid JSON")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return TextCall(name, "{}", f"the arguments of the call to {name} must be a JSON object")
    if name not in offered:
        known = ", ".join(offered) or "none"
        return TextCall(name, "{}", f"no tool named {name!r} was offered; the tools are: {known}")
    return TextCall(name, json.dumps(arguments, ensure_ascii=False))


def malformed(what: str) -> TextCall:
    """A call whose markup could not be read at all (`what` says how)."""
    return TextCall(INVALID_NAME, "{}", f"the tool call could not be parsed: {what}")


def from_object(value: object, offered: Offered) -> TextCall:
    """`{"name": …, "arguments"|"parameters": …}` (Hermes, Mistral, Llama's JSON) as a call."""
    if not isinstance(value, dict):
        return malformed("expected a JSON object with a name and arguments")
    # {"type": "function", "function": {...}} or the call itself
    call = inner if isinstance(inner := value.get("function"), dict) else value
    args = call.get("arguments", call.get("parameters"))
    return checked(call.get("name"), args, offered)
