"""The `write` tool: create or overwrite a file in the workspace, atomically."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from claw.errors import PathEscapeError
from claw.store.atomic import atomic_write_bytes
from claw.tools.args import str_arg
from claw.tools.base import ToolContext, ToolResult
from claw.tools.workspace_paths import resolve_in_workspace


class WriteTool:
    """Writes `content` to `path`, creating parent directories inside the workspace."""

    name = "write"
    description = (
        "Create or overwrite a text file in the workspace with `content` (UTF-8). `path` is relative to "
        "the workspace; missing parent directories are created. The whole file is replaced atomically, "
        "so to change part of an existing file prefer `edit`."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to write, relative to the workspace."},
            "content": {"type": "string", "description": "The complete new contents of the file."},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        path = str_arg(args, "path", tool=self.name, allow_empty=False)
        content = str_arg(args, "content", tool=self.name)
        target = resolve_in_workspace(ctx.workspace, path)
        data = content.encode("utf-8", errors="replace")
        return await asyncio.to_thread(_write, target, path, data)


def _write(target: Path, shown: str, data: bytes) -> ToolResult:
    if target.is_dir():
        return ToolResult(f"write: {shown} is a directory; give a file path", is_error=True)
    # `target` is the resolved location inside the workspace; the directories that
    # do not exist yet cannot be symlinks, so creating them stays inside too.
    target.parent.mkdir(parents=True, exist_ok=True)
    if os.path.realpath(target.parent) != str(target.parent):
        raise PathEscapeError(shown)  # a directory was swapped for a symlink while we looked
    atomic_write_bytes(target, data, mode=None)
    return ToolResult(f"wrote {len(data)} bytes to {shown}")
