"""`TextStream`: splits streamed content into reply, thinking and held-back tool markup.

Every content delta passes through `feed`, so the common case must cost almost nothing: a chunk
with no `<` or `[` in it (and not inside a think block or markup) is passed on after two `in`
scans. A `<` or `[` that may begin a marker is held until it either completes the marker or
cannot (then it is text again), so a tag split across chunks, even mid-tag, never leaks. From a
tool-call marker on, everything is held to the end of the reply, where the parsers read it
(`calls.parse_markup`); markup that holds no call is released as text then. `<think>…</think>`
goes to the thinking stream. A reply whose first character may open a marker-less call (`[`
pythonic, `{` bare JSON) is held while it still can be one: pythonic must go on with a name.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from claw.providers.text_tools.calls import LEADS, MARKERS

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
_TEXT, _THINK, _MARKUP, _LEAD = range(4)
_LEAD_PATTERNS = {  # (a call for sure, a call still possible): `[fn(`, `[{"`, `{"`
    "[": (re.compile(r"\[\s*(?:[A-Za-z_][\w.]*\s*\(|\{\s*\")"), re.compile(r"\[\s*(?:[A-Za-z_][\w.]*\s*|\{\s*)?\Z")),
    "{": (re.compile(r"\{\s*\""), re.compile(r"\{\s*\Z")),
}


class TextStream:
    """One reply's content filter; `tools`: whether tools were offered (no tools, no held markup)."""

    def __init__(self, fmt: str = "auto", *, tools: bool = True) -> None:
        self._markers = (THINK_OPEN, *MARKERS.get(fmt, ())) if tools else (THINK_OPEN,)
        self._leads = LEADS.get(fmt, "") if tools else ""
        self._mode = _LEAD if self._leads else _TEXT
        self._pending = ""
        self._spoke = False  # reply text was shown: a think block's end no longer starts the reply
        self.markup: list[str] = []
        """The held tool markup, marker included."""

    @property
    def held(self) -> str:
        return "".join(self.markup)

    def feed(self, text: str) -> tuple[str, str]:
        """`(reply, thinking)` that may be shown now, of `text` and whatever was held before it."""
        mode = self._mode
        if mode == _TEXT and not self._pending and "<" not in text and "[" not in text:
            return text, ""
        if mode == _MARKUP:
            self.markup.append(text)
            return "", ""
        text, self._pending = self._pending + text, ""
        reply: list[str] = []
        thinking: list[str] = []
        while text:
            if self._mode == _LEAD:
                text = self._lead(text, reply)
            elif self._mode == _THINK:
                text = self._think(text, thinking)
            elif self._mode == _MARKUP:
                self.markup.append(text)
                text = ""
            else:
                text = self._text(text, reply)
        return "".join(reply), "".join(thinking)

    def finish(self) -> tuple[str, str]:
        """The end of the reply: `(reply, thinking)` still held that is not markup (a partial marker, a think
        block never closed). The markup itself stays in `markup` for the caller to parse or release."""
        pending, self._pending = self._pending, ""
        if self._mode == _THINK:
            return "", pending
        if self._mode == _LEAD and pending.strip():
            self.markup.append(pending)
            return "", ""
        return pending, ""

    def _text(self, text: str, reply: list[str]) -> str:
        lt, sq = text.find("<"), text.find("[")
        at = lt if sq < 0 or 0 <= lt < sq else sq
        if at < 0:
            reply.append(text)
            return ""
        reply.append(text[:at])
        rest = text[at:]
        for marker in self._markers:
            if rest.startswith(marker):
                if marker == THINK_OPEN:
                    self._mode = _THINK
                    return rest[len(marker) :]
                self._mode = _MARKUP
                self.markup.append(rest)
                return ""
            if marker.startswith(rest):  # a marker may be under way: wait for the next chunk
                self._pending = rest
                return ""
        reply.append(rest[0])
        return rest[1:]

    def _think(self, text: str, thinking: list[str]) -> str:
        end = text.find(THINK_CLOSE)
        if end >= 0:
            thinking.append(text[:end])
            self._mode = _LEAD if self._leads and not self._spoke else _TEXT
            rest = text[end + len(THINK_CLOSE) :]
            return rest if self._spoke else rest.lstrip()
        cut = text.rfind("<", max(0, len(text) - len(THINK_CLOSE) + 1))
        if cut >= 0 and THINK_CLOSE.startswith(text[cut:]):
            thinking.append(text[:cut])
            self._pending = text[cut:]
        else:
            thinking.append(text)
        return ""

    def _lead(self, text: str, reply: list[str]) -> str:
        """The reply's start: whitespace is dropped; a lead character holds while a call may still follow."""
        stripped = text.lstrip()
        if not stripped:
            return ""
        if any(stripped.startswith(m) for m in self._markers):
            self._mode = _TEXT  # `_text` switches to the marker's mode
            return stripped
        first = stripped[0]
        if first in self._leads:
            definite, possible = _LEAD_PATTERNS[first]
            if definite.match(stripped):
                self._mode = _MARKUP
                self.markup.append(stripped)
                return ""
            if possible.match(stripped) or any(m.startswith(stripped) for m in self._markers):
                self._pending = stripped
                return ""
        elif any(m.startswith(stripped) for m in self._markers):
            self._pending = stripped
            return ""
        self._mode = _TEXT
        self._spoke = True
        return stripped


def reply_only(pieces: Iterable[str]) -> str:
    """The reply in a call's streamed content, `<think>` blocks taken out: for calls that offer no tools
    and show no thinking (a compaction summary, a hook's completion), which must not keep the tags."""
    stream = TextStream("native", tools=False)
    reply = [stream.feed(piece)[0] for piece in pieces]
    reply.append(stream.finish()[0])
    return "".join(reply)
