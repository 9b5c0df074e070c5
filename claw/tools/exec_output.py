"""Collecting a command's output in bounded memory: a head buffer and a tail ring.

A command may print gigabytes; only `max_chars` of it can reach the model. The
collector decodes UTF-8 incrementally, keeps the first part whole and only the
most recent tail, and counts everything, so the final text is the same head +
marker + tail that `cut_head_tail` would produce — without ever holding the
whole output.
"""

from __future__ import annotations

import codecs
from collections import deque

from claw.tools.truncate import split_budget, truncation_marker

LABEL = "exec output"


class OutputCollector:
    """Feed it bytes as they arrive; `text()` gives the (possibly cut) output."""

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self.total_chars = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._head: list[str] = []
        self._head_len = 0
        # Keep enough that an output just under `max_chars` comes back whole.
        self._head_cap = int(max_chars * 0.7)
        self._tail_cap = max_chars - self._head_cap
        self._tail: deque[str] = deque()
        self._tail_len = 0

    def feed(self, data: bytes, *, final: bool = False) -> None:
        self._add(self._decoder.decode(data, final))

    def text(self) -> str:
        """The output so far: whole if it fits `max_chars`, else head, marker line and tail."""
        self.feed(b"", final=True)
        head = "".join(self._head)
        tail = "".join(self._tail)
        if self.total_chars <= self.max_chars:
            return head + tail
        keep_head, keep_tail = split_budget(self.max_chars, LABEL, self.total_chars)
        end = tail[len(tail) - keep_tail :] if keep_tail else ""
        return head[:keep_head] + truncation_marker(LABEL, keep_head, keep_tail, self.total_chars) + end

    def _add(self, text: str) -> None:
        if not text:
            return
        self.total_chars += len(text)
        room = self._head_cap - self._head_len
        if room > 0:
            self._head.append(text[:room])
            self._head_len += min(room, len(text))
            text = text[room:]
        if not text:
            return
        if len(text) >= self._tail_cap:
            self._tail.clear()
            text = text[len(text) - self._tail_cap :]
            self._tail_len = 0
        self._tail.append(text)
        self._tail_len += len(text)
        while self._tail_len - len(self._tail[0]) >= self._tail_cap:
            self._tail_len -= len(self._tail.popleft())
