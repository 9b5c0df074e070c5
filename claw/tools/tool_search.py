"""`tool_search`: the schema of a tool not offered up front, so the model can call it by name.

Offered only in small-window mode (claw/agent/small_window.py), where its description lists the tools
left out of the prompt. The registry runs any registered tool, offered this turn or not, so the answer
is all the model needs: the tool's name, what it does and its parameters.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from claw.tools.base import ToolContext, ToolResult, tool_schema

if TYPE_CHECKING:
    from claw.tools.base import Tool


@dataclass(slots=True)
class ToolSearchTool:
    all_tools: Callable[[str], Sequence[Tool]]
    """Every tool an agent has, the hidden ones included (the registry's `all_tools`)."""
    name: str = "tool_search"
    description: str = "Get the schema of a tool that is not offered up front, then call that tool by name."
    parameters: dict[str, Any] = field(
        default_factory=lambda: {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "the tool's name, or words it is about"}},
            "required": ["name"],
        }
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        wanted = str(args.get("name") or "").strip().lower()
        tools = [t for t in self.all_tools(ctx.agent_id) if t.name != self.name]
        found = [t for t in tools if t.name.lower() == wanted] or [
            t for t in tools if all(w in f"{t.name} {t.description}".lower() for w in wanted.split())
        ]
        if not wanted or not found:
            return ToolResult(f"no tool matches {wanted!r}; tools: {', '.join(t.name for t in tools)}", is_error=True)
        return ToolResult("\n".join(json.dumps(tool_schema(t)["function"]) for t in found[:3]))
