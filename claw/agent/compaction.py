"""Compaction: older history becomes a summary entry; the newest units stay verbatim.

The cut falls between history units, so a tool call is never separated from its results.
Units are kept from the newest back while they fit in the keep budget (about
`keepRecentTokens`, never more than half of what the window leaves for history); everything
older, an earlier summary included, is summarised by the model. The transcript gets one
line `{"type": "compaction", "summary", "firstKeptId", "tokensBefore", "tokensAfter", …}`
and `HistoryView` does the rest: later turns see the summary, then the units from
`firstKeptId` on. Nothing is deleted from the transcript.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from claw.agent.history import Unit
from claw.agent.summarizer import OnFailover, summarize
from claw.agent.tokens import estimate_message
from claw.providers.failover import ModelRouter
from claw.store.transcript import Transcript

SUMMARY_PREFIX = "[Summary of the earlier conversation]\n"


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """Which units to summarise (`units[start:cut]`) and which to keep (`units[cut:]`)."""

    cut: int
    first_kept_id: str
    previous_summary: str | None
    summarized_tokens: int
    kept_tokens: int


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """What a compaction did, as reported in events, `/compact` and `sessions.compact`."""

    entry_id: str
    first_kept_id: str
    summary: str
    summarized_units: int
    kept_units: int
    tokens_before: int
    tokens_after: int
    reason: str

    def to_json(self) -> dict[str, object]:
        return {
            "entryId": self.entry_id,
            "firstKeptId": self.first_kept_id,
            "summarizedUnits": self.summarized_units,
            "keptUnits": self.kept_units,
            "tokensBefore": self.tokens_before,
            "tokensAfter": self.tokens_after,
            "summaryChars": len(self.summary),
            "reason": self.reason,
        }


def plan(units: list[Unit], keep_tokens: int) -> CompactionPlan | None:
    """Where to cut `units` so that at most `keep_tokens` stay verbatim (at least the newest unit);
    None when there is nothing older than that to summarise."""
    start = 1 if units and units[0].first_id == "compaction" else 0
    if len(units) - start < 2 or sum(u.tokens for u in units[start:]) <= keep_tokens:
        return None
    cut = len(units) - 1
    kept = units[cut].tokens
    while cut - 1 > start and kept + units[cut - 1].tokens <= keep_tokens:
        cut -= 1
        kept += units[cut].tokens
    while cut < len(units) and units[cut].first_id in (None, "compaction"):
        cut += 1  # a kept unit must be nameable by its first entry's id
    if cut <= start or cut >= len(units):
        return None
    first_kept = units[cut].first_id
    assert first_kept is not None
    previous = _summary_text(units[0]) if start else None
    summarized = sum(u.tokens for u in units[start:cut])
    return CompactionPlan(cut, first_kept, previous, summarized, sum(u.tokens for u in units[cut:]))


async def compact(
    *,
    router: ModelRouter,
    chain: list[str],
    transcript: Transcript,
    plan_: CompactionPlan,
    units: list[Unit],
    tokens_before: int,
    fixed_tokens: int,
    room_tokens: int,
    reason: str,
    focus: str | None,
    on_failover: OnFailover,
) -> CompactionResult:
    """Summarise `units` before the plan's cut and append the compaction entry to `transcript`.

    `fixed_tokens` is the part of the prompt compaction cannot shrink (system prompt and tool schemas);
    `room_tokens` what the window leaves after the reserve for the reply."""
    start = 1 if plan_.previous_summary is not None else 0
    summary = await summarize(
        router,
        chain,
        units[start : plan_.cut],
        previous=plan_.previous_summary,
        focus=focus,
        room_tokens=room_tokens,
        on_failover=on_failover,
    )
    summary_tokens = estimate_message({"role": "user", "content": SUMMARY_PREFIX + summary})
    after = fixed_tokens + summary_tokens + plan_.kept_tokens
    entry: dict[str, object] = {
        "type": "compaction",
        "summary": summary,
        "firstKeptId": plan_.first_kept_id,
        "tokensBefore": tokens_before,
        "tokensAfter": after,
        "reason": reason,
    }
    if focus:
        entry["focus"] = focus
    written = await asyncio.to_thread(transcript.append, entry)
    return CompactionResult(
        entry_id=written["id"],
        first_kept_id=plan_.first_kept_id,
        summary=summary,
        summarized_units=plan_.cut - start,
        kept_units=len(units) - plan_.cut,
        tokens_before=tokens_before,
        tokens_after=after,
        reason=reason,
    )


def _summary_text(unit: Unit) -> str:
    content = unit.messages[0].get("content") if unit.messages else ""
    text = content if isinstance(content, str) else ""
    return text.removeprefix(SUMMARY_PREFIX)
