"""Workspace files that are code claw runs on the host: changing one with a tool needs the user's approval.

A workspace hook's `handler.py` is imported by the gateway itself, outside the sandbox, with the user's
permissions. The model can write its workspace, so without this rule one `write` would turn "the model
may edit files in a sandboxed folder" into "the model runs code on the host". Every file under
`<workspace>/hooks/` therefore counts as host code (HOOK.md decides which events reach the handler, so it
is guarded too): `write` and `edit` ask the user through the exec approvals broker with a request that
names the file, and refuse when nobody is there to answer. A sandboxed `exec` sees the folder read-only
(`claw.tools.sandbox`); without a sandbox, the hook's pinned hash (`claw.hooks.loader`) keeps a changed
handler from running.

The question is asked before the write; the write itself then checks again, on the location the
workspace walk found (`guard_located`), that it lands in host code only where the user said it may, so a
link swapped in between cannot carry an unapproved write into a hook.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from claw.errors import ClawError
from claw.tools.base import ToolContext, ToolResult
from claw.tools.path_walk import Located
from claw.tools.workspace_paths import resolve_in_workspace

HOST_CODE_DIRS = ("hooks",)
"""Top-level workspace folders whose files claw runs (or reads to decide what to run) on the host."""


def host_code_file(workspace: Path, real: Path) -> Path | None:
    """`real` (a resolved location) when it lies in a host-code folder of `workspace`, else None."""
    root = Path(os.path.realpath(workspace))
    try:
        parts = real.relative_to(root).parts
    except ValueError:
        return None
    return real if parts and parts[0] in HOST_CODE_DIRS else None


async def approve_host_code_change(ctx: ToolContext, tool: str, path: str) -> tuple[Path | None, ToolResult | None]:
    """Ask before `tool` changes `path` when it is host code: (the approved location, None) to go ahead,
    (None, None) when it is no host code, or (None, the refusal to return to the model)."""
    target = await asyncio.to_thread(_target, ctx.workspace, path)
    if target is None:
        return None, None
    file, shown = target
    reason = f"{shown} is a workspace hook's file: code claw runs outside the sandbox"
    request = ctx.approval_request(f"{tool} {file}", reason, tool=tool)
    decision = await ctx.approvals.ask(request)
    if decision in ("allow-once", "allow-always"):
        return file, None
    if decision is None:
        text = (
            f"{tool}: refused: {shown} is a workspace hook's file, code claw runs outside the sandbox; changing it "
            "needs the user's approval, and nobody is here to give it"
        )
    else:
        text = f"{tool}: the user denied changing {shown} (a workspace hook's file, run outside the sandbox)"
    return None, ToolResult(text, is_error=True)


def _target(workspace: Path, path: str) -> tuple[Path, str] | None:
    """Where `path` leads now and its name in the workspace, when that is host code."""
    try:
        real = resolve_in_workspace(workspace, path)
    except (ClawError, OSError):
        # Refused, or changing under realpath: no question now; the tool's own walk refuses it, or the
        # guard on the location it walked to (`guard_located`) refuses host code it was not approved for.
        return None
    file = host_code_file(workspace, real)
    return None if file is None else (file, file.relative_to(os.path.realpath(workspace)).as_posix())


def guard_located(workspace: Path, where: Located, approved: Path | None, tool: str) -> None:
    """Raise unless the location a write is about to replace is no host code, or is the one approved."""
    file = host_code_file(workspace, where.real)
    if file is not None and file != approved:
        raise ClawError(f"{tool}: refused: {file} is a workspace hook's file and this change was not approved")
