"""The memory flush: one silent turn, shortly before compaction, that saves what is worth keeping.

The model sees the prompt as it is now plus a request to put lasting notes into today's
`memory/YYYY-MM-DD.md`. Whatever it answers (unless the silent token `NO_REPLY`) is
appended to that file by claw, under a heading with the time; it may also use the file
tools, say to update MEMORY.md. Nothing of this turn goes into the transcript or to the
user: only a `memory_flush` lifecycle event says that it happened and what it wrote.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from claw.agent.model_turn import ModelTurn
from claw.agent.tokens import estimate_message
from claw.agent.turn import no_events
from claw.errors import ClawError
from claw.paths import ensure_private_dir
from claw.providers.failover import ModelRouter
from claw.safe_read import read_agent_text
from claw.store.file_lock import locked
from claw.tools.base import ToolContext
from claw.tools.registry import ToolRegistry
from claw.tools.safe_open import write_file
from claw.tools.workspace_paths import resolve_in_workspace

log = logging.getLogger(__name__)

SILENT_TOKEN = "NO_REPLY"
FLUSH_TOOLS = frozenset({"read", "write", "edit", "memory_search", "memory_get"})
MAX_ROUNDS = 4

FLUSH_PROMPT = """[Memory flush] This session is close to its context limit; older messages will soon be \
replaced by a summary. Before that happens, save what is worth remembering.
Reply with short Markdown bullet points of durable notes from this conversation: decisions, facts about people \
and projects, preferences, open todos, with dates. claw appends your reply to {path}, so do not write that file \
yourself. Lasting facts may also go into MEMORY.md with the edit tool. Never store secrets.
If there is nothing worth keeping, reply exactly {silent}."""


@dataclass(frozen=True, slots=True)
class FlushResult:
    path: str | None
    """The workspace-relative file the notes were appended to, or None if nothing was written."""
    rounds: int


def daily_note(now: datetime | None = None) -> str:
    return f"memory/{(now or datetime.now()).strftime('%Y-%m-%d')}.md"


async def flush_memory(
    *,
    router: ModelRouter,
    chain: list[str],
    messages: list[dict[str, Any]],
    tools: ToolRegistry,
    tool_ctx: ToolContext,
) -> FlushResult:
    """Run the silent turn on top of `messages` (the prompt as the next model call would send it)."""
    now = datetime.now()
    rel = daily_note(now)
    convo = [*messages, {"role": "user", "content": FLUSH_PROMPT.format(path=rel, silent=SILENT_TOKEN)}]
    schemas = [s for s in tools.schemas() if s["function"]["name"] in FLUSH_TOOLS]
    text = ""
    rounds = 0
    while rounds < MAX_ROUNDS:
        rounds += 1
        turn = ModelTurn()
        await turn.stream(router, chain, convo, schemas, no_events)  # the user never sees the flush turn
        calls = turn.tool_calls()
        text = turn.text
        if not calls:
            break
        convo.append(
            {
                "role": "assistant",
                "content": turn.text or None,
                "tool_calls": [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in calls
                ],
            }
        )
        for call in calls:
            if call.error:  # a call written as text that could not be read (claw/agent/text_calls.py)
                content = call.error
            elif call.name in FLUSH_TOOLS:
                result = await tools.call(call.name, call.arguments, tool_ctx)
                content = result.text
            else:
                content = f"{call.name} is not available during the memory flush"
            convo.append({"role": "tool", "tool_call_id": call.id, "content": content})
        text = ""
    notes = text.strip()
    if not notes or notes.upper().startswith(SILENT_TOKEN):
        return FlushResult(None, rounds)
    try:
        await asyncio.to_thread(_append, tool_ctx.workspace, rel, notes, now, tool_ctx.session_key)
    except ClawError as exc:  # the note is a link out, a FIFO …: the notes are lost, nothing outside is touched
        log.warning("memory flush: not writing %s: %s", rel, exc.message)
        return FlushResult(None, rounds)
    return FlushResult(rel, rounds)


def _append(workspace: Path, rel: str, notes: str, now: datetime, session_key: str) -> None:
    """Add the notes to the day's file, read and rewritten under its lock, so two sessions flushing
    at once (in one gateway or two) both keep their notes.

    The agent can write the note (or make it a link to ~/.ssh/id_rsa, or a FIFO): it is read by the rule for
    agent-writable files and rewritten through the workspace walk, so nothing outside is read into it or
    written; a refusal raises `ClawError`."""
    path = resolve_in_workspace(workspace, rel)  # memory/ must not lead out before its lock file is made there
    ensure_private_dir(path.parent)
    with locked(path):
        existing = read_agent_text(workspace, rel)
        if existing is None:
            existing = f"# {now.strftime('%Y-%m-%d')}\n"
        block = f"## {now.strftime('%H:%M')} — notes kept before compaction ({session_key})\n\n{notes}\n"
        data = (existing.rstrip("\n") + "\n\n" + block).encode("utf-8")
        write_file(workspace, rel, data, tool="memory flush", allow_hardlinks=False)


def fit_messages(messages: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """The system message and as many of the newest messages as fit `budget` tokens (a tool result whose call
    was left out is left out too)."""
    system, rest = messages[:1], messages[1:]
    used = sum(estimate_message(m) for m in system)
    kept: list[dict[str, Any]] = []
    for message in reversed(rest):
        used += estimate_message(message)
        if used > budget:
            break
        kept.append(message)
    kept.reverse()
    while kept and kept[0].get("role") == "tool":
        kept.pop(0)
    return [*system, *kept]
