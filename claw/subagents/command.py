"""`/subagents`: the session's children with their status; `/subagents stop <runId|all>` stops them."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from claw.errors import UsageError
from claw.subagents.record import SubagentRecord

if TYPE_CHECKING:
    from claw.gateway.commands import CommandCall
    from claw.subagents.host import SubagentsHost
    from claw.subagents.registry import SubagentRegistry

SHOWN = 20


async def subagents_command(registry: SubagentRegistry, host: SubagentsHost, call: CommandCall) -> str:
    mine = [r for r in registry.all() if r.parent_session_key == call.session_key]
    words = call.args.split()
    if not words or words[0] in ("list", "ls"):
        if not mine:
            return "No subagents in this session."
        return "\n".join(["Subagents (newest last):", *(_line(r) for r in mine[-SHOWN:])])
    if words[0] in ("stop", "kill") and len(words) == 2:
        target = words[1]
        running = [r for r in mine if not r.finished]
        chosen = running if target == "all" else [r for r in running if r.run_id.startswith(target)]
        if not chosen:
            return f"No running subagent matches {target!r}."
        stopped = sum(host.abort(r.run_id) for r in chosen)
        return f"Stopping {stopped} subagent{'s' if stopped != 1 else ''}; the parent hears of it."
    raise UsageError("/subagents: use /subagents, or /subagents stop <runId|all>")


def _line(record: SubagentRecord) -> str:
    if record.started_at and not record.finished:
        when = f"{time.time() - record.started_at:.0f} s running"
    elif record.started_at and record.ended_at:
        when = f"took {record.ended_at - record.started_at:.1f} s"
    else:
        when = "waiting for a slot" if not record.finished else "never started"
    return f"  {record.run_id[:8]}  {record.status:<8} {record.name} ({when})"
