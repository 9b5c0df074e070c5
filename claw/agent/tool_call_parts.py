"""`ToolCallParts`: the fragments of a response's native tool calls put back together.

OpenAI's streams tie the fragments of one call by `index`, the first fragment carrying the id and the
name, the rest pieces of the arguments. Servers in the wild differ, and each rule below is for one:

- a fragment that repeats an id already seen belongs to that call (servers that resend the id with
  every fragment, or resend the whole call);
- a fragment without an `index` belongs to the last call, unless it brings an id not seen before,
  which starts a new call (Ollama and some llama.cpp builds send complete calls without an index);
  without id or index, a fragment that names a tool while the last call already has its name and
  complete JSON arguments is a new call too;
- an `index` already used, arriving with a different id once that call is complete (a name and
  arguments that parse), is a new call (servers that number every call 0); while it is incomplete the
  fragment is still its (servers that make up an id for every fragment);
- the name is taken once (some servers send it with every fragment); arguments are concatenated,
  whether they come in one fragment or fifty, except a call's complete arguments sent again whole
  (servers that repeat the finished call in their last chunk).
"""

from __future__ import annotations

import json

from claw.providers.base import ToolCallDelta


class ToolCallParts:
    """The native calls of one response so far: `calls` maps a position (arrival order) to id, name, arguments."""

    def __init__(self) -> None:
        self.calls: dict[int, dict[str, str]] = {}
        self._by_index: dict[int, int] = {}  # the server's index → our position

    def add(self, delta: ToolCallDelta) -> None:
        slot = self._slot(delta)
        call = self.calls.setdefault(slot, {"id": "", "name": "", "arguments": ""})
        call["id"] = call["id"] or (delta.id or "")
        call["name"] = call["name"] or (delta.name or "")
        if delta.arguments and delta.arguments == call["arguments"] and _is_json(delta.arguments):
            return  # the finished call sent again
        call["arguments"] += delta.arguments

    def _slot(self, delta: ToolCallDelta) -> int:
        if delta.id:
            for known, call in self.calls.items():
                if call["id"] == delta.id:
                    return known
        if delta.index is not None:
            slot = self._by_index.get(delta.index)
            if slot is None or (delta.id and self.calls[slot]["id"] and self._complete(slot)):
                slot = self._by_index[delta.index] = len(self.calls)
            return slot
        if not self.calls or delta.id or (delta.name and self._complete(len(self.calls) - 1)):
            return len(self.calls)
        return len(self.calls) - 1

    def _complete(self, slot: int) -> bool:
        call = self.calls[slot]
        return bool(call["name"]) and _is_json(call["arguments"])


def _is_json(text: str) -> bool:
    if not text.strip():
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True
