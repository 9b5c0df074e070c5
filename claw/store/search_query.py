"""What a user types into session search, made safe for FTS5, and the snippets that come back.

The query is words, not FTS5 syntax: each word is quoted (so `-`, `:`, `"`, `AND` or `*` in it are
plain text, never an operator or a syntax error) and all of them must match. Snippets mark the
matched words with two control characters that the indexer strips from message text, so the marks
are unambiguous; `parse_snippet` turns them into plain text plus (start, end) spans that any client
(the CLI's rich text, the console's palette, a JSON consumer) can highlight its own way.
"""

from __future__ import annotations

from dataclasses import dataclass

HIGHLIGHT_START = "\x02"
HIGHLIGHT_END = "\x03"
MIN_PREFIX_CHARS = 2  # a one-letter prefix would match most of the index


@dataclass(frozen=True, slots=True)
class Snippet:
    """Text around a match, one line, with the matched words' character spans."""

    text: str
    spans: tuple[tuple[int, int], ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"snippet": self.text, "highlights": [list(span) for span in self.spans]}


def match_expression(query: str, *, prefix: bool = False) -> str | None:
    """The FTS5 MATCH expression for `query`'s words (all must match), or None when it has none.
    With `prefix`, the last word also matches longer words it starts (as-you-type search)."""
    words = [word for word in query.split() if any(ch.isalnum() for ch in word)]
    if not words:
        return None
    quoted = ['"' + word.replace('"', '""') + '"' for word in words]
    if prefix and len(words[-1]) >= MIN_PREFIX_CHARS:
        quoted[-1] += "*"
    return " ".join(quoted)


def parse_snippet(marked: str | None) -> Snippet:
    """Plain text and highlight spans from FTS5's `snippet()` output (newlines flattened to spaces)."""
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    start: int | None = None
    length = 0
    for ch in marked or "":
        if ch == HIGHLIGHT_START:
            start = length
        elif ch == HIGHLIGHT_END:
            if start is not None and length > start:
                spans.append((start, length))
            start = None
        else:
            out.append(" " if ch in "\r\n\t" else ch)
            length += 1
    return Snippet("".join(out), tuple(spans))
