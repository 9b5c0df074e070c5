"""Cutting a Markdown file into overlapping chunks of about N tokens, each with its line range.

Chunks follow line boundaries, so a search hit can point at `path#L12-L30`; a line longer
than a whole chunk is split into pieces that share its line number. Consecutive chunks
share their last/first lines (about `overlap` tokens) so that a fact spanning a boundary
is still found whole in one of them. HTML comments are blanked out first (line count kept):
the workspace template uses them for examples, which must not turn up as memories.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from claw.agent.tokens import CHARS_PER_TOKEN

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a file: 1-based inclusive line range, its text, and a hash of that text."""

    start_line: int
    end_line: int
    text: str

    @property
    def hash(self) -> str:
        return text_hash(self.text)


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def blank_comments(text: str) -> str:
    """`text` with every `<!-- … -->` replaced by as many newlines as it spanned."""
    return _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def chunk_markdown(text: str, tokens: int = 400, overlap: int = 80) -> list[Chunk]:
    """Split `text` into chunks of at most ~`tokens` tokens sharing ~`overlap` tokens; blank chunks dropped."""
    max_chars = max(CHARS_PER_TOKEN * 8, tokens * CHARS_PER_TOKEN)
    overlap_chars = min(max(0, overlap * CHARS_PER_TOKEN), max_chars // 2)
    pieces = list(_pieces(text, max_chars))
    chunks: list[Chunk] = []
    current: list[tuple[int, str]] = []
    size = 0
    for number, piece in pieces:
        if current and size + len(piece) + 1 > max_chars:
            chunks.append(_make(current))
            current, size = _carry(current, min(overlap_chars, max_chars - len(piece) - 1))
        current.append((number, piece))
        size += len(piece) + 1
    if current:
        chunks.append(_make(current))
    return [c for c in chunks if c.text.strip()]


def _pieces(text: str, max_chars: int) -> list[tuple[int, str]]:
    """(line number, text) for every line, long lines cut into `max_chars` pieces."""
    out: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if len(line) <= max_chars:
            out.append((number, line))
        else:
            out.extend((number, line[i : i + max_chars]) for i in range(0, len(line), max_chars))
    return out


def _carry(current: list[tuple[int, str]], overlap_chars: int) -> tuple[list[tuple[int, str]], int]:
    """The trailing lines of a finished chunk that start the next one (at least the overlap, never all)."""
    if overlap_chars <= 0:
        return [], 0
    kept: list[tuple[int, str]] = []
    size = 0
    for item in reversed(current[1:]):
        if size >= overlap_chars:
            break
        kept.insert(0, item)
        size += len(item[1]) + 1
    return kept, size


def _make(lines: list[tuple[int, str]]) -> Chunk:
    return Chunk(lines[0][0], lines[-1][0], "\n".join(text for _, text in lines))
