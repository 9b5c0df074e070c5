"""Cutting a Markdown memory file into chunks that follow its structure, each with its line range.

A search hit cites its chunk as `path#L12-L18`, so a chunk should hold the lines that belong
together and little else. The file is cut in this order:

1. **Headings** (ATX, `#` … `######`, outside code fences): every heading starts a new section,
   and no chunk spans two sections. A section whose body is blank (a template heading with only
   a comment under it) gives no chunk of its own: its title still heads the chunks of its
   subsections, and its line joins the first of them when nothing stands between the two.
2. **Blocks** inside a section: paragraphs and lists (runs of non-blank lines) and fenced code
   blocks (from the opening fence to the closing one, blank lines included).
3. **Packing**: a section's blocks are packed in order into chunks of at most ~`tokens` tokens
   (four characters a token, as `claw.agent.tokens` estimates). A block that fits in a chunk is
   never split; only a block larger than a whole chunk is cut, at line boundaries (a code
   fence too, as a last resort), and a line longer than a whole chunk into pieces that share
   its line number.

Where one section needs several chunks, each chunk after the first repeats the trailing lines
(or short blocks) of the previous one, up to ~`overlap` tokens, so that a fact at the cut is
found whole in one of them. Sections do not overlap: a heading is a natural break.

Each chunk keeps the titles of the headings it sits under (`heading`, e.g. `MEMORY.md › People`),
which is indexed and embedded with its text and shown with a hit. HTML comments are blanked out
first (line count kept): the workspace template uses them for examples, which must not turn up
as memories. Bump `CHUNKER_VERSION` whenever these rules change: the index records it and
rebuilds itself when it differs.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from claw.agent.tokens import CHARS_PER_TOKEN

CHUNKER_VERSION = 2
"""1: fixed-size runs of lines; 2: headings, then blocks, packed."""

HEADING_SEPARATOR = " › "

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of a file: 1-based inclusive line range, its text, and the headings it sits under."""

    start_line: int
    end_line: int
    text: str
    heading: str = ""

    @property
    def hash(self) -> str:
        """Identifies what is embedded (heading and text), so an unchanged chunk keeps its vector."""
        return text_hash(f"{self.heading}\n{self.text}" if self.heading else self.text)


@dataclass(frozen=True, slots=True)
class _Unit:
    """What packing moves around: a whole block, a line of a large block, or a piece of a long line."""

    start: int
    end: int
    text: str


@dataclass(slots=True)
class _Section:
    """The lines under one heading (or before the first): its heading line, if any, and its blocks."""

    titles: tuple[str, ...]
    level: int  # of its heading; 0 before the first heading
    heading: _Unit | None
    blocks: list[_Unit]


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def blank_comments(text: str) -> str:
    """`text` with every `<!-- … -->` replaced by as many newlines as it spanned."""
    return _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def embedding_input(heading: str, text: str) -> str:
    """What is embedded for a chunk: its headings for context, then its text."""
    return f"{heading}\n\n{text}" if heading else text


def chunk_markdown(text: str, tokens: int = 400, overlap: int = 80) -> list[Chunk]:
    """Split `text` into chunks of at most ~`tokens` tokens (see the module docstring); blank ones dropped."""
    max_chars = max(CHARS_PER_TOKEN * 8, tokens * CHARS_PER_TOKEN)
    overlap_chars = min(max(0, overlap * CHARS_PER_TOKEN), max_chars // 2)
    lines = text.splitlines()
    chunks: list[Chunk] = []
    for section in _sections(lines):
        heading = HEADING_SEPARATOR.join(t for t in section.titles if t)
        blocks = list(section.blocks)
        if section.heading is not None:  # the heading line goes with the first block, never alone
            first = blocks[0]
            blocks[0] = _Unit(section.heading.start, first.end, "\n".join(lines[section.heading.start - 1 : first.end]))
        units = [unit for block in blocks for unit in _units(block, lines, max_chars)]
        for packed in _pack(units, lines, max_chars, overlap_chars):
            chunks.append(Chunk(packed[0].start, packed[-1].end, _join(packed, lines), heading))
    return chunks


def _sections(lines: list[str]) -> list[_Section]:
    """The file's sections in order, each with its heading titles; sections with a blank body left out."""
    sections: list[_Section] = []
    trail: list[tuple[int, str]] = []  # (level, title) of the headings in force
    current = _Section((), 0, None, [])
    block_start: int | None = None
    fence: str | None = None  # the opening fence's marker while inside a code block

    def close_block(end: int) -> None:
        nonlocal block_start
        if block_start is not None:
            while end > block_start and not lines[end - 1].strip():
                end -= 1
            current.blocks.append(_Unit(block_start, end, "\n".join(lines[block_start - 1 : end])))
            block_start = None

    for number, line in enumerate(lines, start=1):
        if fence is not None:
            if _closes(line, fence):
                fence = None
                close_block(number)
            continue
        opened = _FENCE.match(line)
        if opened:
            close_block(number - 1)
            fence, block_start = opened.group(1), number
            continue
        heading = _HEADING.match(line)
        if heading:
            close_block(number - 1)
            sections.append(current)
            level = len(heading.group(1))
            trail = [(lvl, title) for lvl, title in trail if lvl < level] + [(level, (heading.group(2) or "").strip())]
            current = _Section(tuple(title for _, title in trail), level, _Unit(number, number, line), [])
            continue
        if not line.strip():
            close_block(number - 1)
        elif block_start is None:
            block_start = number
    close_block(len(lines))  # an unclosed fence runs to the end of the file
    sections.append(current)
    return _drop_empty(sections, lines)


def _drop_empty(sections: list[_Section], lines: list[str]) -> list[_Section]:
    """The sections with a body. Headings without one that lead straight down to a deeper heading
    (`# 2025-03-01` over `## Morning`) join its heading line, so the chunk shows them; an empty
    heading followed by a sibling (a template heading left unfilled) gives nothing."""
    kept: list[_Section] = []
    run: list[tuple[int, _Unit]] = []  # (level, heading line) of consecutive empty headings, each deeper
    for section in sections:
        if any(block.text.strip() for block in section.blocks):
            if run and section.heading is not None and section.level > run[-1][0]:
                start, end = run[0][1].start, section.heading.end
                section.heading = _Unit(start, end, "\n".join(lines[start - 1 : end]))
            kept.append(section)
            run = []
        elif section.heading is not None:
            found = (section.level, section.heading)
            run = [*run, found] if run and section.level > run[-1][0] else [found]
    return kept


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return len(line) - len(line.lstrip(" ")) <= 3 and len(stripped) >= len(fence) and set(stripped) == {fence[0]}


def _units(block: _Unit, lines: list[str], max_chars: int) -> list[_Unit]:
    """`block` whole if it fits in a chunk, else its lines, an over-long line cut into pieces."""
    if len(block.text) <= max_chars:
        return [block]
    out: list[_Unit] = []
    for number in range(block.start, block.end + 1):
        line = lines[number - 1]
        if not line.strip():
            continue  # blank lines stay in the text (see `_separator`) but never start or end a chunk
        if len(line) <= max_chars:
            out.append(_Unit(number, number, line))
        else:
            out.extend(_Unit(number, number, line[i : i + max_chars]) for i in range(0, len(line), max_chars))
    return out


def _pack(units: list[_Unit], lines: list[str], max_chars: int, overlap_chars: int) -> list[list[_Unit]]:
    """Consecutive runs of `units`, each joining to at most `max_chars`, overlapping by `_carry`."""
    packed: list[list[_Unit]] = []
    current: list[_Unit] = []
    size = 0
    for unit in units:
        if current and size + len(_separator(current[-1], unit, lines)) + len(unit.text) > max_chars:
            packed.append(current)
            current = _carry(current, unit, lines, overlap_chars, max_chars)
            size = len(_join(current, lines)) if current else 0
        size += (len(_separator(current[-1], unit, lines)) if current else 0) + len(unit.text)
        current.append(unit)
    if current:
        packed.append(current)
    return packed


def _carry(current: list[_Unit], after: _Unit, lines: list[str], overlap_chars: int, max_chars: int) -> list[_Unit]:
    """The trailing units of a finished chunk that start the next one, before `after`: at most
    `overlap_chars`, no more than leaves room for `after`, never the chunk's first unit (so every
    chunk moves on)."""
    kept: list[_Unit] = []
    for unit in reversed(current[1:]):
        candidate = [unit, *kept]
        if len(_join(candidate, lines)) > overlap_chars or len(_join([*candidate, after], lines)) > max_chars:
            break
        kept = candidate
    return kept


def _separator(before: _Unit, after: _Unit, lines: list[str]) -> str:
    """What stands between two units in a chunk's text: nothing between pieces of one line, else the
    newline and any blank lines between them, as they are in the file."""
    if after.start == before.end:
        return ""
    return "\n" + "".join(line + "\n" for line in lines[before.end : after.start - 1])


def _join(units: list[_Unit], lines: list[str]) -> str:
    parts = [units[0].text]
    for before, after in zip(units, units[1:], strict=False):
        parts.append(_separator(before, after, lines))
        parts.append(after.text)
    return "".join(parts)
