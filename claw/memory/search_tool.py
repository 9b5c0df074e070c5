"""The `memory_search` tool: hybrid search over MEMORY.md and memory/*.md."""

from __future__ import annotations

import json
from typing import Any

from claw.memory.manager import MemoryManager
from claw.tools.args import ToolArgumentError, int_arg, str_arg
from claw.tools.base import ToolContext, ToolResult


class MemorySearchTool:
    """Finds the chunks of the agent's memory files that best match a query."""

    name = "memory_search"
    description = (
        "Search your memory files (MEMORY.md and memory/*.md) for prior work, decisions, dates, people, "
        "preferences and todos. Returns the best matching chunks as JSON: path, startLine, endLine, the "
        "headings the chunk sits under, score and a snippet. Open a hit with memory_get(path, from=startLine, "
        "lines=…) when you need more."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, in words likely to be in the notes."},
            "maxResults": {"type": "integer", "minimum": 1, "maximum": 50, "description": "At most this many."},
            "minScore": {"type": "number", "minimum": 0, "maximum": 1, "description": "Drop weaker hits (0..1)."},
        },
        "required": ["query"],
        "additionalProperties": False,
    }

    def __init__(self, manager: MemoryManager) -> None:
        self._manager = manager

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        query = str_arg(args, "query", tool=self.name, allow_empty=False)
        max_results = int_arg(args, "maxResults", tool=self.name)
        min_score = args.get("minScore")
        if min_score is not None and (
            isinstance(min_score, bool) or not isinstance(min_score, int | float) or not 0 <= min_score <= 1
        ):
            raise ToolArgumentError(f"{self.name}: argument 'minScore' must be a number from 0 to 1")
        params = self._manager.params(query, min(max_results or 0, 50) or None, min_score)
        outcome = await self._manager.search(ctx.agent_id, params)
        payload: dict[str, Any] = {
            "results": [hit.to_json() for hit in outcome.hits],
            "mode": outcome.mode,
            "model": outcome.model,
        }
        if outcome.note:
            payload["note"] = outcome.note
        if not outcome.hits:
            payload["hint"] = "no match; try other words, or a lower minScore"
        return ToolResult(json.dumps(payload, ensure_ascii=False, indent=1))
