"""The `memory_get` tool: lines of MEMORY.md or a memory/ note, and nothing else."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from claw.errors import ClawError
from claw.memory.files import is_memory_path, normalise
from claw.tools.args import int_arg, str_arg
from claw.tools.base import ToolContext, ToolResult
from claw.tools.safe_open import open_regular

MAX_CHARS = 6_400  # about 1,600 tokens, as OpenClaw bounds it
TRUNCATED = "…[truncated]"


class MemoryGetTool:
    """Reads a window of a memory file (by workspace-relative path, as memory_search reports it)."""

    name = "memory_get"
    description = (
        "Read lines from a memory file: MEMORY.md or memory/*.md (paths as memory_search reports them). "
        "`from` is the 1-based first line (default 1), `lines` how many (default: to the end, about 1,600 "
        "tokens at most). Other files are refused: use read for those."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "MEMORY.md or memory/<file>.md"},
            "from": {"type": "integer", "minimum": 1, "description": "1-based line to start at."},
            "lines": {"type": "integer", "minimum": 1, "description": "How many lines."},
        },
        "required": ["path"],
        "additionalProperties": False,
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        rel = normalise(str_arg(args, "path", tool=self.name, allow_empty=False))
        start = int_arg(args, "from", tool=self.name) or 1
        count = int_arg(args, "lines", tool=self.name)
        if not is_memory_path(rel):
            raise ClawError(f"memory_get reads only MEMORY.md and memory/*.md, not {rel!r}; use read for other files")
        allow_hardlinks = ctx.settings.tools.files.allow_hardlinks
        text = await asyncio.to_thread(read_memory, ctx.workspace, rel, start, count, allow_hardlinks=allow_hardlinks)
        return ToolResult(json.dumps({"path": rel, "from": start, "text": text}, ensure_ascii=False))


def read_memory(workspace: Path, rel: str, start: int, count: int | None, *, allow_hardlinks: bool) -> str:
    """The window of memory file `rel`, read through the descriptor that was checked: the file opened is the
    file judged (`claw.tools.safe_open`, as `read` does), never a name swapped for a symlink in between."""
    with open_regular(workspace, rel, tool="memory_get", allow_hardlinks=allow_hardlinks) as opened:
        real_rel = opened.where.real.relative_to(os.path.realpath(workspace)).as_posix()
        if not is_memory_path(real_rel):  # a symlink in memory/ that points at another file
            raise ClawError(f"memory_get: {rel} leads to {real_rel}, which is not a memory file")
        with open(opened.fd, "rb", closefd=False) as raw:
            data = raw.read()
    return window(data.decode("utf-8", errors="replace"), start, count)


def window(text: str, start: int, count: int | None) -> str:
    """Lines `start`… of `text` (`count` of them, or to the end), cut at `MAX_CHARS` with a marker."""
    lines = text.splitlines()
    if start > max(1, len(lines)):
        raise ClawError(f"memory_get: from={start} is beyond the end of the file ({len(lines)} lines)")
    chosen = lines[start - 1 : start - 1 + count if count else None]
    text = "\n".join(chosen)
    if len(text) > MAX_CHARS:
        cut = text[:MAX_CHARS]
        shown = cut.count("\n") + 1
        text = f"{cut}{TRUNCATED} (continue with from={start + shown - 1})"
    return text
