"""Telling the parent session what became of a child: a system-event turn, or failing that a transcript note.

The announcement is a `system_event` message dispatched into the parent session on the `nested`
lane: it is recorded there with role `system` and starts a parent turn that can report to the
user. When no turn can run (the gateway is shutting down, the parent agent is gone) or the turn
was stopped before it recorded the message, the text is appended to the parent's transcript
directly, so its next turn sees it all the same. Nothing is lost silently.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from claw.errors import ClawError
from claw.subagents.record import Announce, SubagentRecord
from claw.tools.truncate import cut_head_tail
from claw.vocab.msg_context import MsgContext
from claw.vocab.session_keys import agent_of

if TYPE_CHECKING:
    from claw.gateway.host import SessionLookup
    from claw.subagents.host import SubagentsHost
    from claw.subagents.registry import SubagentRegistry

log = logging.getLogger(__name__)

ANNOUNCE_LANE = "nested"
MAX_RESULT_CHARS = 12_000
_HEADLINES = {
    "ok": "finished",
    "error": "failed",
    "timeout": "timed out",
    "aborted": "was stopped before it finished",
}


def announcement(record: SubagentRecord) -> str:
    """The system message the parent session gets about `record` (a finished child)."""
    took = f"{record.ended_at - record.started_at:.1f} s" if record.ended_at and record.started_at else "never started"
    usage = dict(record.usage)
    stats = f"{took} · tokens in {usage.get('input', 0)} / out {usage.get('output', 0)}"
    lines = [
        f'Subagent "{record.name}" {_HEADLINES.get(record.status, record.status)}.',
        f"Status: {record.status} · {stats}",
        f"Session: {record.session_key} (run {record.run_id})",
    ]
    if record.error:
        lines.append(f"Error: {record.error}")
    if record.result.strip():
        lines += ["Result:", cut_head_tail(record.result.strip(), MAX_RESULT_CHARS, label="subagent result")]
    if record.status == "ok":
        lines.append("Use this result to continue, or report it to the user in your own words.")
    else:
        lines.append("Tell the user the subagent did not complete, and why; retry only if it makes sense.")
    return "\n".join(lines)


async def announce(host: SubagentsHost, registry: SubagentRegistry, record: SubagentRecord) -> Announce:
    """Deliver the announcement of `record`; returns how (`delivered`, `noted` or `failed`). The registry
    learns of the announcement turn as soon as it is queued; its final state is for the caller to record."""
    text = announcement(record)
    parent = host.find_run(record.parent_run_id)
    base = parent.ctx if parent is not None else None
    ctx = MsgContext(
        body=text,
        channel=base.channel if base else "cli",
        account_id=base.account_id if base else "default",
        chat_type=base.chat_type if base else "direct",
        peer_id=base.peer_id if base else "local",
        sender_id=base.sender_id if base else "local",
        group_id=base.group_id if base else None,
        agent_id=agent_of(record.parent_session_key),
        session_key=record.parent_session_key,
        command_authorized=base.command_authorized if base else False,
        system_event=True,
    )
    try:
        run = await host.start_run(ctx, lane=ANNOUNCE_LANE, model=parent.model_override if parent else None)
    except ClawError as exc:  # shutting down, the parent agent gone, or no run (NoRunStarted)
        log.info("subagent %s: no announcement turn (%s); noting it in %s", record.run_id, exc, ctx.session_key)
        return await note(host, record, text)
    registry.update(record.run_id, announce="running", announce_run_id=run.id)
    await run.wait()
    if run.started_at is None:  # stopped while queued: its message was never recorded
        return await note(host, record, text)
    return "delivered"


async def note(host: SessionLookup, record: SubagentRecord, text: str) -> Announce:
    """Append the announcement to the parent's transcript for its next turn; `noted`, or `failed`."""
    agent_id = agent_of(record.parent_session_key)

    def write() -> None:
        store = host.sessions(agent_id)
        entry = store.get_or_create(record.parent_session_key)
        store.transcript(entry).append({"role": "system", "content": text, "subagentRunId": record.run_id})
        store.record_turn(record.parent_session_key, preview=text)

    try:
        await asyncio.to_thread(write)
    except (ClawError, OSError) as exc:
        log.error("subagent %s: could not announce to %s: %s", record.run_id, record.parent_session_key, exc)
        return "failed"
    return "noted"
