"""The `edit` tool: replace one exact, unique piece of text in a workspace file."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path
from typing import Any

from claw.tools.args import str_arg
from claw.tools.base import ToolContext, ToolResult
from claw.tools.host_code import approve_host_code_change, guard_located
from claw.tools.safe_open import OpenFile, open_regular, replace_at


class EditTool:
    """Replaces `oldText` with `newText` in `path`; `oldText` must occur exactly once."""

    name = "edit"
    description = (
        "Edit a text file in the workspace by replacing `oldText` with `newText`. `oldText` must match "
        "the file exactly (whitespace and indentation included) and occur exactly once; include enough "
        "surrounding lines to make it unique. Read the file first. Use `write` to create a new file."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to edit, relative to the workspace."},
            "oldText": {"type": "string", "description": "Exact text to find; must occur exactly once."},
            "newText": {"type": "string", "description": "Text to put in its place (may be empty)."},
        },
        "required": ["path", "oldText", "newText"],
        "additionalProperties": False,
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = str_arg(args, "path", tool=self.name, allow_empty=False)
        old = str_arg(args, "oldText", tool=self.name, allow_empty=False)
        new = str_arg(args, "newText", tool=self.name)
        approved, refusal = await approve_host_code_change(ctx, self.name, path)
        if refusal is not None:
            return refusal
        return await asyncio.to_thread(_edit, ctx, path, old, new, approved)


def _edit(ctx: ToolContext, shown: str, old: str, new: str, approved: Path | None) -> ToolResult:
    """Read and replace the file through one directory descriptor, so both touch the same file."""
    allow_hardlinks = ctx.settings.tools.files.allow_hardlinks
    with open_regular(ctx.workspace, shown, tool="edit", allow_hardlinks=allow_hardlinks) as opened:
        guard_located(ctx.workspace, opened.where, approved, "edit")
        try:
            # Decoded whole, without newline translation: CRLF stays byte-for-byte outside the edited span.
            text = opened.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            return ToolResult(f"edit: {shown} is not UTF-8 text; edit refuses to rewrite it", is_error=True)
        return _replace_once(opened, text, shown, old, new)


def _replace_once(opened: OpenFile, text: str, shown: str, old: str, new: str) -> ToolResult:
    count = text.count(old)
    if count == 0:
        return ToolResult(
            f"edit: oldText not found in {shown}; read the file and copy the text exactly, whitespace included",
            is_error=True,
        )
    if count > 1:
        return ToolResult(
            f"edit: oldText occurs {count} times in {shown}; include more surrounding text so it matches exactly once",
            is_error=True,
        )
    updated = text.replace(old, new, 1)
    replace_at(opened.where, updated.encode("utf-8", errors="replace"), mode=stat.S_IMODE(opened.stat.st_mode))
    line = text[: text.index(old)].count("\n") + 1
    return ToolResult(f"edited {shown}: replaced 1 occurrence at line {line}")
