"""Cutting long Markdown into chunks at top-level block boundaries.

Textual lays out every block of a Markdown widget whenever it changes, and culls
off-screen widgets only among the children of a scrolling container. A long reply
kept as one Markdown widget therefore costs more on every frame as it grows; the
same reply as several Markdown widgets (each a child of the conversation) costs
only what is on screen. Cutting between top-level blocks keeps the rendering
identical: a paragraph, list, table or code fence is never split.
"""

from __future__ import annotations

from functools import cache

from markdown_it import MarkdownIt

CHUNK_CHARS = 3000
"""Roughly how much text one Markdown widget holds before the next block starts a new one."""


@cache
def _parser() -> MarkdownIt:
    return MarkdownIt("gfm-like")  # the parser Textual's Markdown widget uses


def block_starts(text: str) -> list[int]:
    """Character offsets where top-level blocks start (the first is usually 0)."""
    line_offsets = [0]
    for line in text.splitlines(keepends=True):
        line_offsets.append(line_offsets[-1] + len(line))
    starts: list[int] = []
    for token in _parser().parse(text):
        if token.level == 0 and token.map is not None and token.nesting >= 0:
            offset = line_offsets[min(token.map[0], len(line_offsets) - 1)]
            if not starts or starts[-1] != offset:
                starts.append(offset)
    return starts


def last_block_start(text: str) -> int:
    """Where the last top-level block starts (0 when there is only one)."""
    starts = block_starts(text)
    return starts[-1] if starts else 0


def chunks(text: str, limit: int = CHUNK_CHARS) -> list[str]:
    """`text` cut at block boundaries into pieces of about `limit` characters; joined, they are `text`."""
    if len(text) <= limit:
        return [text]
    pieces: list[str] = []
    begin = 0
    for start in block_starts(text):
        if start - begin >= limit:
            pieces.append(text[begin:start])
            begin = start
    pieces.append(text[begin:])
    return pieces
