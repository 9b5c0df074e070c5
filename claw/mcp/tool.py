"""`McpTool`: one server tool as a claw `Tool` (`<server>__<tool>`), asking first when the server says so.

Approval goes through the exec approval path (`ToolContext.approvals`): the same dialogs, the same
"allow always" list, where an MCP tool is remembered as the pattern `mcp:<server>__<tool>`. With
nobody there to ask, a call that needs approval is refused, as exec's is under `askFallback = "deny"`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claw.mcp.connection import McpConnection, ServerDown
from claw.mcp.results import to_tool_result
from claw.tools.allow_entry import AllowEntry
from claw.tools.base import ToolContext, ToolResult
from claw.untrusted import wrap_untrusted

if TYPE_CHECKING:
    from claw.settings.mcp import Approval

_DESCRIPTION_CHARS = 1024


@dataclass(frozen=True, slots=True)
class McpTool:
    """A tool of server `connection.name`, called there as `remote_name`."""

    name: str
    description: str
    parameters: dict[str, Any]
    remote_name: str
    read_only: bool
    connection: McpConnection
    media_dir: Path
    text: str = ""
    """The server's own description, unmarked (the catalogue shows its first line and searches all of it)."""

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        refused = await self._authorize(args, ctx)
        if refused is not None:
            return refused
        server = self.connection.name
        if self.connection.status.state in ("starting", "stopped"):  # offered from its last listing
            ctx.notice(f"waiting for MCP server {server} (starting)")
        try:
            result = await self.connection.call(self.remote_name, args)
        except ServerDown as exc:
            return ToolResult(f"{exc}; it is restarted automatically, try again later", is_error=True)
        except TimeoutError as exc:
            return ToolResult(f"{self.name}: MCP server {server} timed out ({exc}); the call was cancelled", True)
        except Exception as exc:  # noqa: BLE001 - the server's error is the model's to read
            return ToolResult(f"{self.name}: MCP server {server} error: {exc}", is_error=True)
        shown = to_tool_result(result, server, self.media_dir)
        if shown.is_error and self.connection.status.sandbox == "bwrap":
            from claw.mcp.sandboxing import write_refused_hint

            hint = write_refused_hint(server, shown.text)
            if hint is not None:  # claw's own words, after the server's (which stay marked as untrusted)
                return ToolResult(f"{shown.text}\n(claw: {hint})", is_error=True)
        return shown

    async def _authorize(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult | None:
        policy: Approval = self.connection.settings.approval
        if policy == "never" or (policy == "on-write" and self.read_only):
            return None
        pattern = f"mcp:{self.name}"
        if any(entry.pattern == pattern for entry in ctx.approvals.allowlist(ctx.agent_id)):
            return None
        shown = ", ".join(f"{k}={_short(v)}" for k, v in args.items())
        reason = f"MCP server {self.connection.name} asks for approval ({policy})"
        request = ctx.approval_request(f"{self.name}({shown})", reason, tool=self.name)
        decision = await ctx.approvals.ask(request)
        if decision is None:
            return ToolResult(f"{self.name} denied: approval required but no one is available to approve it", True)
        if decision == "deny":
            return ToolResult(f"{self.name} denied by user", is_error=True)
        if decision == "allow-always":
            ctx.approvals.remember(ctx.agent_id, AllowEntry(pattern), request.command)
        return None


def one_line(text: str | None, limit: int = 120) -> str:
    """The first line of a description, cut to `limit` (for the catalogue)."""
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def text_of(raw: str | None) -> str:
    """A server's description as claw keeps it: stripped, at most `_DESCRIPTION_CHARS`."""
    return (raw or "").strip()[:_DESCRIPTION_CHARS]


def description_of(raw: str | None, server: str) -> str:
    """A tool's description as the model sees it: the server's text is third-party, marked as such (as its
    results are). The marker id is derived from the text, so the description, and the prompt cache, stay
    the same across restarts; the text cannot close the block, since `wrap_untrusted` defangs markers."""
    text = text_of(raw)
    if not text:
        return f"[MCP {server}] (no description)"
    ident = hashlib.sha256(f"{server}\0{text}".encode()).hexdigest()[:16]
    return f"[MCP {server}] " + wrap_untrusted(text, f"MCP server {server} (tool description)", marker_id=ident)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:79] + "…"
