"""The `sessions_spawn` tool: start a subagent on a task and return at once; its result comes back later."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from claw.subagents.spawner import SpawnRequest, spawn
from claw.tools.args import ToolArgumentError, number_arg, str_arg
from claw.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from claw.subagents.host import SubagentsHost
    from claw.subagents.registry import SubagentRegistry

MAX_TASK_CHARS = 50_000


class SpawnTool:
    name = "sessions_spawn"
    description = (
        "Start a subagent: a separate run, in its own session, that works on `task` while you go on. "
        "It returns at once with the child's session key and run id; do not wait or poll. When the child "
        "finishes (or fails, or times out) its result arrives in this session as a system message, and you "
        "get a turn to report it. The child sees only the task and AGENTS.md, so put everything it needs "
        "into `task`. Optional: `label` (a short name), `agentId` (another agent, if allowed), `model`, "
        "`skills` (names it may use) and `timeoutSeconds`."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "task": {"type": "string", "description": "What the subagent should do, with all the context it needs."},
            "label": {"type": "string", "description": "A short name for the subagent."},
            "agentId": {"type": "string", "description": "Agent to run it as (default: yours)."},
            "model": {"type": "string", "description": "Model ref, e.g. openai/gpt-4o-mini."},
            "skills": {"type": "array", "items": {"type": "string"}, "description": "Skills it may use."},
            "timeoutSeconds": {"type": "number", "description": "Stop it after this many seconds of running."},
        },
        "required": ["task"],
        "additionalProperties": False,
    }

    def __init__(self, host: SubagentsHost, registry: SubagentRegistry) -> None:
        self._host = host
        self._registry = registry

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        task = str_arg(args, "task", tool=self.name).strip()
        if not task:
            raise ToolArgumentError(f"{self.name}: argument 'task' must not be empty")
        if len(task) > MAX_TASK_CHARS:
            raise ToolArgumentError(f"{self.name}: 'task' is {len(task)} chars; keep it under {MAX_TASK_CHARS}")
        request = SpawnRequest(
            task=task,
            agent_id=_optional(args, "agentId", self.name),
            model=_optional(args, "model", self.name),
            skills=_names(args.get("skills"), self.name),
            timeout_s=number_arg(args, "timeoutSeconds", tool=self.name),
            label=_optional(args, "label", self.name),
        )
        record = await spawn(self._host, self._registry, ctx, request)
        reply = {
            "status": "accepted",
            "runId": record.run_id,
            "childSessionKey": record.session_key,
            "agentId": record.agent_id,
            "label": record.label,
            "timeoutSeconds": record.timeout_s,
            "note": "The result will be announced in this session when the subagent ends; do not poll for it.",
        }
        return ToolResult(json.dumps(reply, ensure_ascii=False))


def _optional(args: dict[str, Any], name: str, tool: str) -> str | None:
    if args.get(name) in (None, ""):
        return None
    return str_arg(args, name, tool=tool).strip() or None


def _names(value: Any, tool: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ToolArgumentError(f"{tool}: argument 'skills' must be a list of skill names")
    return tuple(dict.fromkeys(v.strip() for v in value))
