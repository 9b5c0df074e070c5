"""The `automations` tool: the agent lists, adds, removes and runs its own scheduled jobs — owner only.

Only the operator may create persistence: the tool acts for messages from the local
console/CLI or from a sender the channel authorised, and refuses everything else
(including automation runs themselves, so a job cannot multiply itself).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from claw.tools.args import str_arg
from claw.tools.base import ToolContext, ToolResult

if TYPE_CHECKING:
    from claw.automations.manager import AutomationManager

LOCAL_CHANNELS = ("cli", "tui")
NOT_PERMITTED = "automations: tool not permitted for sender (only the owner may manage automations)"


class AutomationsTool:
    name = "automations"
    description = (
        "Manage scheduled automations (jobs that run an agent turn later or repeatedly). "
        "action=list shows them; action=add needs `message` and one of `cron` (5-field expression, e.g. "
        "'0 9 * * *'), `every` (e.g. '30m') or `at` (ISO time or delay such as '20m'), optionally `name`, "
        "`tz` (IANA zone), `session` (isolated|main) and `deliver` (none|<channel>:<target>|webhook:<url>); "
        "action=remove and action=run need `id` (id or name). Only the owner may use this tool."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["list", "add", "remove", "run"]},
            "id": {"type": "string", "description": "Job id or name (remove, run)."},
            "message": {"type": "string", "description": "What the agent should do when the job fires."},
            "cron": {"type": "string"},
            "every": {"type": "string"},
            "at": {"type": "string"},
            "tz": {"type": "string"},
            "name": {"type": "string"},
            "session": {"type": "string", "enum": ["isolated", "main"]},
            "deliver": {"type": "string"},
        },
        "required": ["action"],
        "additionalProperties": False,
    }

    def __init__(self, manager: Callable[[], AutomationManager]) -> None:
        self._manager_of = manager  # the manager is built when the tool is first called

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if not (ctx.channel in LOCAL_CHANNELS or ctx.sender_authorized) or ctx.channel == "cron":
            return ToolResult(NOT_PERMITTED, is_error=True)
        from claw.automations.describe import schedule_text
        from claw.automations.timezones import local_text

        action = str_arg(args, "action", tool=self.name)
        manager = self._manager_of()
        if action == "list":
            return ToolResult(await _listing(manager))
        if action == "add":
            fields = {k: v for k, v in args.items() if k != "action"}
            if "on" in fields:  # a trigger's key must go to a person, never into a transcript
                return ToolResult(
                    "automations: event triggers are added with `claw automations add --on`", is_error=True
                )
            fields.setdefault("agentId", ctx.agent_id)
            job = await manager.add(fields)
            when = local_text(job.next_run_at, job.schedule.tz)
            return ToolResult(f"added automation {job.id} ({job.name}): {schedule_text(job.schedule)}, next run {when}")
        ref = str_arg(args, "id", tool=self.name, allow_empty=False)
        if action == "remove":
            job = await manager.remove(ref)
            return ToolResult(f"removed automation {job.id} ({job.name})")
        if action == "run":
            run = await manager.run_now(ref, wait=False)
            return ToolResult(f"started automation {ref}: ledger run {run.id}, agent run {run.agent_run_id}")
        return ToolResult(f"automations: unknown action {action!r}; use list, add, remove or run", is_error=True)


async def _listing(manager: AutomationManager) -> str:
    from claw.automations.describe import schedule_text
    from claw.automations.timezones import local_text

    jobs = await manager.list()
    if not jobs:
        return "no automations"
    lines = []
    for job in jobs:
        state = "enabled" if job.enabled else "disabled"
        nxt = local_text(job.next_run_at, job.schedule.tz)
        lines.append(
            f"{job.id} {job.name!r}: {schedule_text(job.schedule)} [{job.schedule.tz}] {state}, next {nxt}, "
            f"last {job.last_status or '-'}, session {job.session_mode}, message {job.message[:80]!r}"
        )
    return "\n".join(lines)
