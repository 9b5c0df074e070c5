"""`/context` and `/compact [focus]`, offered as the `ContextCapability`; the RPC methods `sessions.context`
and `sessions.compact` (`claw.api.sessions_context`) answer from the same functions.

Both work on a session between turns: a compaction waits for the session's lane, so it never
interleaves with a running turn's transcript writes (and refuses while a turn is running).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from claw.agent.context_report import context_report, render_report
from claw.agent.sections import SectionRequest
from claw.agent.truncation_check import NOTE as TRUNCATION_NOTE
from claw.agent.turn import Turn
from claw.agent.windows import model_window
from claw.errors import ClawError, UsageError
from claw.gateway.capability import BaseCapability, Command
from claw.providers.base import ModelError
from claw.store.transcript import Transcript

if TYPE_CHECKING:
    from claw.agent.compaction import CompactionResult
    from claw.agent.env import AgentEnv
    from claw.agent.runner import AgentRunner
    from claw.config import Config
    from claw.gateway.commands import CommandCall
    from claw.gateway.lanes import LaneScheduler
    from claw.providers.failover import ModelRouter
    from claw.tools.registry import ToolRegistry


class ContextHost(Protocol):
    """What reading a session's prompt and compacting it use of the gateway."""

    config: Config
    runner: AgentRunner
    router: ModelRouter
    lanes: LaneScheduler
    tools: ToolRegistry

    def agent_env(self, agent_id: str) -> AgentEnv: ...


async def _inputs(gw: ContextHost, agent_id: str, key: str) -> tuple[AgentEnv, Transcript, list[str], list[Any], Any]:
    env = gw.agent_env(agent_id)
    entry = env.sessions.get(key)
    chain = gw.runner.model_chain(env, entry.model_override if entry else None)
    # No session yet: an empty history (the transcript of a session that does not exist is never written).
    transcript = env.sessions.transcript(entry) if entry else Transcript(env.sessions.transcript_path("-"))
    request = SectionRequest(
        agent_id=agent_id,
        session_key=key,
        workspace=env.workspace,
        settings=env.settings,
        message="",
        channel=entry.channel if entry else "cli",
        sender_id="local",
    )
    extra = await gw.runner.render_sections(request)
    return env, transcript, chain, extra, entry


async def session_context(gw: ContextHost, agent_id: str, key: str) -> dict[str, Any]:
    """The prompt breakdown the session's next turn would start from (before its message arrives)."""
    env, transcript, chain, extra, entry = await _inputs(gw, agent_id, key)
    ctx = gw.runner.context
    schemas = await gw.tools.turn_schemas(agent_id, key)
    prompt = await ctx.build(Turn(env, key, transcript, schemas, extra, chain))
    source = model_window(gw.router.resolve(chain[0]), gw.config.models)[1] if chain else "default"
    reported = gw.runner.context.server_windows.get(str(gw.router.resolve(chain[0]))) if chain else None
    if source != "config" and reported and prompt.window == reported:
        source = "server"
    if "context_tokens" in env.settings.model_fields_set and prompt.window == env.settings.context_tokens:
        source = "config"
    # Between turns there is no current message: the last one sent is history now.
    sections = tuple(replace(s, tokens=0) if s.name == "current message" else s for s in prompt.sections)
    current = sum(s.tokens for s in prompt.sections if s.name == "current message")
    sections = tuple(replace(s, tokens=s.tokens + current) if s.name == "history" else s for s in sections)
    prompt = replace(prompt, sections=sections)
    extras = entry.extra if entry else {}
    done = extras.get("memoryFlushCompactionCount")
    flushed = isinstance(done, int) and done >= int(extras.get("compactionCount") or 0)
    return context_report(
        prompt,
        session_key=key,
        model=chain[0] if chain else None,
        window_source=source,
        extra={
            "compactions": int(extras.get("compactionCount") or 0),
            "memoryFlush": flushed,
            "compactionEnabled": env.settings.compaction.enabled,
            "sourceToolSchemas": _source_schemas(gw, schemas),
            "promptTruncated": extras.get(TRUNCATION_NOTE),
        },
    )


def _source_schemas(gw: ContextHost, schemas: list[dict[str, Any]]) -> dict[str, int]:
    """The share of the tool schemas that comes from tool sources (MCP servers): count and ~tokens."""
    from claw.agent.tokens import estimate_json

    builtin = set(gw.tools.names)
    dynamic = [s for s in schemas if s.get("function", {}).get("name") not in builtin]
    return {"count": len(dynamic), "tokens": sum(estimate_json(s) for s in dynamic)}


async def compact_session(gw: ContextHost, agent_id: str, key: str, focus: str | None) -> CompactionResult | None:
    """Compact the session now (None when its history is already within what is kept verbatim)."""
    if gw.lanes.session_busy(key):
        raise UsageError(f"a turn is running in {key}; wait for it (or /stop it), then compact")
    env, transcript, chain, extra, entry = await _inputs(gw, agent_id, key)
    if entry is None:
        return None
    if not chain:
        raise UsageError("no model configured to write the summary with")
    async with gw.lanes.run_slot(key), asyncio.timeout(env.settings.timeout_seconds):
        turn = Turn(env, key, transcript, gw.tools.schemas(), extra, chain)
        return await gw.runner.context.compact(turn, "manual", focus)


async def _context_command(gw: ContextHost, call: CommandCall) -> str:
    report = await session_context(gw, call.agent_id, call.session_key)
    if call.args.strip().lower() == "json":
        return json.dumps(report, indent=2)
    text, sourced = render_report(report), report.get("sourceToolSchemas") or {}
    if sourced.get("count"):  # MCP servers' tools: the part of the schemas the user can trim
        text += f"\nOf the tool schemas, {sourced['count']} MCP tools take ~{sourced['tokens']:,} tokens."
    return text


async def _compact_command(gw: ContextHost, call: CommandCall) -> str:
    try:
        result = await compact_session(gw, call.agent_id, call.session_key, call.args.strip() or None)
    except ModelError as exc:
        return f"Compaction failed: model error: {exc.message}"
    except ClawError as exc:
        return f"Cannot compact: {exc.message}"
    if result is None:
        return "Nothing to compact: the history is within what compaction keeps verbatim."
    return (
        f"Compacted {call.session_key}: {result.summarized_units} older history parts summarised "
        f"({len(result.summary):,} chars), {result.kept_units} kept verbatim from entry {result.first_kept_id}. "
        f"Prompt ~{result.tokens_before:,} → ~{result.tokens_after:,} tokens."
    )


class ContextCapability(BaseCapability):
    """`/context` and `/compact`: the runtime's view of a session's prompt, offered to every client."""

    name = "context"

    def commands(self) -> Sequence[Command]:
        return (
            Command("context", "what the prompt holds, per section, against the model's window", _context_command),
            Command("compact", "summarise older history now: /compact [what to focus on]", _compact_command),
        )
