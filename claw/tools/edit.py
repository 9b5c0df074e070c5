"""The `edit` tool: replace one exact, unique piece of text in a workspace file."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from claw.store.atomic import atomic_write_bytes
from claw.tools.args import str_arg
from claw.tools.base import ToolContext, ToolResult
from claw.tools.workspace_paths import resolve_in_workspace


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
        target = resolve_in_workspace(ctx.workspace, path, must_exist=True)
        return await asyncio.to_thread(_edit, target, path, old, new)


def _edit(target: Path, shown: str, old: str, new: str) -> ToolResult:
    if target.is_dir():
        return ToolResult(f"edit: {shown} is a directory; give a file path", is_error=True)
    if not target.is_file():
        return ToolResult(f"edit: {shown} is not a regular file", is_error=True)
    try:
        # newline="" keeps CRLF files byte-for-byte outside the edited span.
        with target.open(encoding="utf-8", newline="") as handle:
            text = handle.read()
    except UnicodeDecodeError:
        return ToolResult(f"edit: {shown} is not UTF-8 text; edit refuses to rewrite it", is_error=True)
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
    atomic_write_bytes(target, updated.encode("utf-8", errors="replace"), mode=None)
    line = text[: text.index(old)].count("\n") + 1
    return ToolResult(f"edited {shown}: replaced 1 occurrence at line {line}")
