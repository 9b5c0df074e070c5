"""The JSONL codec under transcripts: one record per physical line, tolerant parsing.

Writing: a record becomes exactly one line of UTF-8 that never fails to encode (lone
surrogates become U+FFFD) and never contains a raw line separator. Reading: whole lines
are parsed one by one; a malformed line is skipped and counted, never fatal; a line that
is not yet terminated by a newline is either a complete record missing its newline (kept)
or a torn write (left unconsumed, so a later read can look at it again).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

# Escaped so that tools splitting on Unicode line boundaries still see one record per line.
_LINE_SEPARATORS = {"\u2028": "\\u2028", "\u2029": "\\u2029"}


def encode_line(record: dict[str, Any]) -> bytes:
    """`record` as one UTF-8 JSON line ending in a newline.

    Raises TypeError/ValueError for values JSON cannot hold, before anything is written.
    """
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in _LINE_SEPARATORS.items():
        text = text.replace(raw, escaped)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates (e.g. from a JSON "\ud800" escape) cannot be stored as UTF-8:
        # pair what can be paired and replace the rest with U+FFFD.
        data = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").encode("utf-8")
    return data + b"\n"


@dataclass(slots=True)
class ParsedChunk:
    """What `parse_chunk` found in a run of bytes that starts at a line boundary."""

    entries: list[dict[str, Any]] = field(default_factory=list)
    consumed: int = 0  # bytes fully dealt with; a later read resumes here
    skipped: int = 0  # malformed or NUL-filled lines, not counting a torn tail
    lines_parsed: int = 0  # json.loads calls, for the read cache's tests and benches
    torn_tail: bytes = b""  # an unterminated, unparseable last line (left unconsumed)
    nul_tail: bool = False  # the chunk ended in NUL bytes only (crash on ext4/NTFS)


def parse_chunk(data: bytes) -> ParsedChunk:
    """Parse the JSONL records in `data`; see the module docstring for the rules."""
    chunk = ParsedChunk()
    end = data.rfind(b"\n") + 1
    for line in data[:end].split(b"\n")[:-1]:
        _parse_line(line, chunk)
    chunk.consumed = end
    tail = data[end:]
    if not tail.strip(b"\x00 \t\r"):
        chunk.nul_tail = b"\x00" in tail
        return chunk
    record = _loads(tail.strip(b"\x00 \t\r"), chunk)
    if record is None:
        chunk.torn_tail = tail
    else:
        chunk.entries.append(record)
        chunk.consumed = len(data)
    return chunk


def _parse_line(line: bytes, chunk: ParsedChunk) -> None:
    body = line.strip(b"\x00 \t\r")
    if not body:
        if b"\x00" in line:
            chunk.skipped += 1
        return
    record = _loads(body, chunk)
    if record is None:
        chunk.skipped += 1
    else:
        chunk.entries.append(record)


def _loads(body: bytes, chunk: ParsedChunk) -> dict[str, Any] | None:
    chunk.lines_parsed += 1
    try:
        value = json.loads(body)
    except ValueError:  # includes UnicodeDecodeError
        return None
    return value if isinstance(value, dict) else None
