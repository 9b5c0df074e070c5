"""Streamed replies shaped the way real local servers shape them, for the scripted model server.

``ScriptedModelServer`` writes a ``Completion`` the way OpenAI does. Servers in the wild do not: content
arrives in any split (a tag cut mid-way), tool-call arguments in one chunk or fifty, fragments without an
``index`` or with the id repeated on each, chunks whose ``choices`` is empty, usage only on the last
chunk or never, and no ``data: [DONE]`` at the end. A ``Shaped`` reply says exactly which chunks go out;
script it like any other reply::

    server.script(shaped(*split_text("<tool_call>{...}</tool_call>", 3), finish_reason="stop"))

``deltas`` are the ``delta`` objects of the chunks, in order; ``None`` in their place is a chunk with
``"choices": []`` (and no usage). After them come the finish chunk, the usage (``usage_at``: ``"final"``
its own chunk with empty choices as OpenAI sends it, ``"finish"`` on the finish chunk, ``"none"``
never, even when asked for), then ``[DONE]`` unless ``done`` is False.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from tests.support.model_replies import ChatTurn, Completion, Usage

UsageAt = Literal["final", "finish", "none"]


@dataclass(frozen=True, slots=True)
class Shaped(Completion):
    """A streamed reply written chunk by chunk as given (see the module docstring)."""

    deltas: tuple[dict[str, Any] | None, ...] = ()
    usage_at: UsageAt = "final"
    done: bool = True

    def shaped_frames(self, turn: ChatTurn) -> list[bytes]:
        frames = [_frame(turn, {"role": "assistant"})]
        frames += [_frame(turn, delta) for delta in self.deltas]
        usage = (self.usage or turn.usage()).as_dict()
        finish = _frame(turn, {}, self.finish_reason or "stop", usage if self.usage_at == "finish" else None)
        frames.append(finish)
        if self.usage_at == "final":
            frames.append(_frame(turn, None, usage=usage))
        if self.done:
            frames.append(b"data: [DONE]\n\n")
        return frames


def shaped(
    *deltas: dict[str, Any] | None,
    finish_reason: str = "stop",
    usage: Usage | None = None,
    usage_at: UsageAt = "final",
    done: bool = True,
    delay_per_chunk: float = 0.0,
) -> Shaped:
    """A reply of exactly these chunk deltas (`delay_per_chunk` seconds before each); the usage, when not
    given, is estimated from the content."""
    content = "".join(d.get("content") or "" for d in deltas if d)
    return Shaped(
        content=content,
        finish_reason=finish_reason,
        usage=usage,
        deltas=deltas,
        usage_at=usage_at,
        done=done,
        delay_per_chunk=delay_per_chunk,
    )


def split_text(text: str, size: int, *, key: str = "content") -> list[dict[str, Any]]:
    """`text` as deltas of `size` characters (`key` "reasoning_content" for reasoning deltas)."""
    return [{key: text[at : at + size]} for at in range(0, len(text), max(1, size))]


def call_fragments(
    name: str,
    args: dict[str, Any] | str,
    *,
    id: str | None = "call_a",
    index: int | None = 0,
    pieces: int = 1,
    id_on_each: bool = False,
    name_on_each: bool = False,
) -> list[dict[str, Any]]:
    """One native tool call as deltas: its arguments cut into `pieces` fragments (the first also carries
    the id and name). `index` None leaves the index out; `id_on_each` / `name_on_each` repeat them on every
    fragment, as some servers do."""
    text = args if isinstance(args, str) else json.dumps(args)
    count = max(1, min(pieces, len(text)))
    cuts = [len(text) * n // count for n in range(count + 1)]
    parts = [text[cuts[n] : cuts[n + 1]] for n in range(count)]
    out = []
    for n, part in enumerate(parts):
        call: dict[str, Any] = {"type": "function", "function": {"arguments": part}}
        if index is not None:
            call["index"] = index
        if id is not None and (n == 0 or id_on_each):
            call["id"] = id
        if n == 0 or name_on_each:
            call["function"]["name"] = name
        out.append({"tool_calls": [call]})
    return out


def interleave_empty(deltas: Iterable[dict[str, Any] | None]) -> list[dict[str, Any] | None]:
    """`deltas` with a chunk of empty `choices` before each (servers send keep-alives and stats that way)."""
    out: list[dict[str, Any] | None] = []
    for delta in deltas:
        out += [None, delta]
    return out


def _frame(
    turn: ChatTurn, delta: dict[str, Any] | None, finish: str | None = None, usage: dict[str, Any] | None = None
) -> bytes:
    payload: dict[str, Any] = {
        "id": turn.id,
        "object": "chat.completion.chunk",
        "created": turn.created,
        "model": turn.model,
        "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    if usage is not None:
        payload["usage"] = usage
    return b"data: " + json.dumps(payload).encode() + b"\n\n"
