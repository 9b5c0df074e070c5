"""`TextCalls`: one response's content as the user may see it, and the tool calls it wrote as text.

Every content delta of a response goes through `feed` (`claw.providers.text_tools.stream.TextStream`):
reply text comes out at once, `<think>` blocks come out as thinking, and tool markup is held to the
end of the response. `finish` then decides what the held markup was:

- the response was cut by the output limit: the markup is incomplete, it is neither run nor shown;
- it holds no call (`{"foo": 1}`, a list that is no call): it was the reply, released as text;
- the response also had native tool calls: those are the calls, the markup is dropped (logged);
- otherwise its calls are the response's calls: each to an offered tool runs, and a malformed one or one
  to a tool that was not offered is answered with its error as a failed tool result, so the model sees
  what went wrong and can try again, instead of the user seeing markup or nothing.

Which formats are read comes from the model's `toolCallFormat` (`tool_call_format`): `auto` (every one),
`native` (none: content is only ever text and thinking) or one format's name.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from claw.config import ModelSettings
from claw.providers.refs import parse_model_ref
from claw.providers.text_tools.call import Offered
from claw.providers.text_tools.calls import detected_format, parse_markup
from claw.providers.text_tools.stream import TextStream

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call the model asked for; `error` set: it is not run, `error` is its (failed) result."""

    id: str
    name: str
    arguments: str
    error: str | None = None

    def to_entry(self) -> dict[str, str]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}


def tool_call_format(ref: str, models: Mapping[str, ModelSettings]) -> str:
    """Model `ref`'s `toolCallFormat`, looked up as `contextWindow` is (`claw.agent.windows`); `auto` when unset."""
    parsed = parse_model_ref(ref)
    for key in (ref, str(parsed), parsed.model):
        found = models.get(key)
        if found is not None and "tool_call_format" in found.model_fields_set:
            return found.tool_call_format
    return "auto"


def offered_tools(schemas: list[dict[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The offered tools' names and parameter schemas, from the `tools` of the request."""
    offered: dict[str, Mapping[str, Any]] = {}
    for schema in schemas:
        function = schema.get("function") if isinstance(schema, dict) else None
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            parameters = function.get("parameters")
            offered[function["name"]] = parameters if isinstance(parameters, dict) else {}
    return offered


class TextCalls:
    """The content filter of one response, for a model whose format is `fmt`, offered `tools`."""

    def __init__(self, fmt: str, tools: list[dict[str, Any]]) -> None:
        self.format = fmt
        self._offered: Offered = offered_tools(tools)
        self._stream = TextStream(fmt, tools=bool(self._offered) and fmt != "native")

    def feed(self, text: str) -> tuple[str, str]:
        """`(reply, thinking)` of `text` that may be shown now."""
        return self._stream.feed(text)

    def finish(self, *, native_calls: bool, truncated: bool) -> tuple[str, str, list[ToolCall]]:
        """`(reply, thinking, calls)` still to come once the response ended; see the module docstring."""
        reply, thinking = self._stream.finish()
        held = self._stream.held
        if not held:
            return reply, thinking, []
        if truncated:
            log.info("a %s tool call was cut by the output limit; it is not run", detected_format(held))
            return reply, thinking, []
        parsed = parse_markup(held, self._offered, self.format)
        if parsed is None:
            return reply + held, thinking, []
        calls, rest = parsed
        if native_calls:
            log.info("dropping %s tool markup beside the native tool calls", detected_format(held))
            return reply + rest, thinking, []
        log.debug("read %d tool call(s) in %s format from the reply's text", len(calls), detected_format(held))
        found = [ToolCall(f"call_{uuid.uuid4().hex[:12]}", c.name, c.arguments, c.error) for c in calls]
        return reply + rest, thinking, found
