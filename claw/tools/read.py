"""The `read` tool: a window of lines from a text file in the workspace (or a skills directory)."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterator
from typing import IO, Any

from claw.tools.args import int_arg, str_arg
from claw.tools.base import ToolContext, ToolResult
from claw.tools.safe_open import OpenFile, open_regular
from claw.tools.truncate import result_limit

DEFAULT_LINE_LIMIT = 2000
BINARY_SNIFF_BYTES = 8192
_NOTE_RESERVE = 200  # room kept for the notes appended after the lines


class ReadTool:
    """Reads a UTF-8 text file, `limit` lines from line `offset`, and says where to go on from."""

    name = "read"
    description = (
        "Read a text file. `path` is relative to the workspace (absolute paths must stay inside it; "
        "skill directories listed in the prompt may be read too). Returns up to `limit` lines "
        f"(default {DEFAULT_LINE_LIMIT}) starting at line `offset` (1-based, default 1); when more lines "
        "remain, the output ends with a note giving the offset to continue from. Binary files and "
        "directories are refused."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to read, relative to the workspace."},
            "offset": {"type": "integer", "minimum": 1, "description": "1-based line number to start at."},
            "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of lines to return."},
        },
        "required": ["path"],
        "additionalProperties": False,
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = str_arg(args, "path", tool=self.name, allow_empty=False)
        offset = int_arg(args, "offset", tool=self.name) or 1
        limit = int_arg(args, "limit", tool=self.name) or DEFAULT_LINE_LIMIT
        budget = max(1_000, result_limit(ctx.settings) - _NOTE_RESERVE)
        return await asyncio.to_thread(_read, ctx, path, offset, limit, budget)


def _read(ctx: ToolContext, path: str, offset: int, limit: int, budget: int) -> ToolResult:
    allow_hardlinks = ctx.settings.tools.files.allow_hardlinks
    with open_regular(
        ctx.workspace, path, tool="read", allow_hardlinks=allow_hardlinks, extra_roots=ctx.read_roots
    ) as opened:
        return _read_window(opened, path, offset, limit, budget)


def _read_window(opened: OpenFile, shown: str, offset: int, limit: int, budget: int) -> ToolResult:
    with open(opened.fd, "rb", closefd=False) as raw:
        if b"\x00" in raw.read(BINARY_SNIFF_BYTES):
            return ToolResult(
                f"read: {shown} looks like a binary file (it contains NUL bytes); refusing to read it",
                is_error=True,
            )
        raw.seek(0)
        with io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="") as handle:
            return _collect(_lines(handle, budget + 1), shown, offset, limit, budget)


def _collect(lines: Iterator[tuple[str, bool]], shown: str, offset: int, limit: int, budget: int) -> ToolResult:
    kept: list[str] = []
    used = 0
    number = 0
    notes: list[str] = []
    for number, (text, was_cut) in enumerate(lines, start=1):
        if number < offset:
            continue
        if len(kept) >= limit or (kept and used + len(text) > budget):
            remaining = 1 + sum(1 for _ in lines)
            notes.append(f"[... {remaining} more lines; use offset={number} to read on]")
            break
        if was_cut or len(text) > budget:
            kept.append(text[:budget])
            notes.append(f"[... line {number} is longer than {budget} chars and was cut here]")
            remaining = sum(1 for _ in lines)
            if remaining:
                notes.append(f"[... {remaining} more lines; use offset={number + 1} to read on]")
            break
        kept.append(text)
        used += len(text)
    if number < offset and offset > 1:
        return ToolResult(f"read: offset {offset} is beyond the end of {shown} ({number} lines)", is_error=True)
    body = "".join(kept)
    if not body and not notes:
        return ToolResult("(empty file)")
    if notes:
        body += ("" if body.endswith(("\n", "\r")) else "\n") + "\n".join(notes)
    return ToolResult(body)


def _lines(handle: IO[str], cap: int) -> Iterator[tuple[str, bool]]:
    """Each line of `handle` (ending included) cut to `cap` chars, and whether it was cut.

    Memory stays bounded by `cap` even for a file that is one enormous line.
    """
    while True:
        line = handle.readline(cap)
        if not line:
            return
        if len(line) < cap or line.endswith(("\n", "\r")):
            yield line, False
            continue
        while True:  # skip the rest of an over-long line
            rest = handle.readline(cap)
            if not rest or rest.endswith(("\n", "\r")):
                break
        yield line, True
