"""The `write` tool: create or overwrite a file in the workspace, atomically."""

from __future__ import annotations

import asyncio
from typing import Any

from claw.tools.args import str_arg
from claw.tools.base import ToolContext, ToolResult
from claw.tools.host_code import approve_host_code_change
from claw.tools.safe_open import write_file


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
        data = content.encode("utf-8", errors="replace")
        allow_hardlinks = ctx.settings.tools.files.allow_hardlinks
        approved, refusal = await approve_host_code_change(ctx, self.name, path)
        if refusal is not None:
            return refusal
        # Every component is opened relative to its parent's descriptor (claw.tools.path_walk),
        # so a directory swapped for a symlink meanwhile cannot carry the file out of the workspace.
        await asyncio.to_thread(
            write_file, ctx.workspace, path, data, tool=self.name, allow_hardlinks=allow_hardlinks, approved=approved
        )
        return ToolResult(f"wrote {len(data)} bytes to {path}")
