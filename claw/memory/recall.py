"""The memory section of the system prompt: the Memory Recall rule, and what memory holds about this message.

Before each run the message is searched for in memory and the best hits go into the prompt,
best first, within `memory.recallTokens` (~2,000 tokens): a hit that does not fit whole is
cut, and the rest are left for the model to find with `memory_search`. Daily notes are
never injected whole; only chunks that match.
"""

from __future__ import annotations

import asyncio
import logging

from claw.agent.sections import SectionRequest
from claw.agent.tokens import estimate_text
from claw.memory.manager import MemoryManager
from claw.memory.search import SearchHit

log = logging.getLogger(__name__)

RECALL_RULE = """## Memory Recall
Before answering anything about prior work, decisions, dates, people, preferences or todos: run memory_search \
over MEMORY.md and memory/*.md, then use memory_get to pull only the lines you need. If you are still unsure \
after searching, say that you checked. To remember something, write it down: lasting facts in MEMORY.md, the \
day's notes in memory/YYYY-MM-DD.md."""

RECALL_HEADING = "### Recalled from memory for this message\nBest matches first; open more with memory_get."
MAX_QUERY_CHARS = 2_000
RECALL_TIMEOUT_SECONDS = 15.0
MIN_USEFUL_TOKENS = 40


class MemoryRecall:
    """`PromptSectionSource` named "memory"."""

    name = "memory"

    def __init__(self, manager: MemoryManager) -> None:
        self._manager = manager

    async def render(self, request: SectionRequest) -> str | None:
        s = self._manager.settings
        if not s.enabled:
            return None
        parts = [RECALL_RULE]
        query = request.message.strip()[:MAX_QUERY_CHARS]
        if s.recall and query and s.recall_tokens > 0 and s.recall_max_results > 0:
            params = self._manager.params(query, s.recall_max_results)
            try:
                async with asyncio.timeout(RECALL_TIMEOUT_SECONDS):
                    outcome = await self._manager.search(request.agent_id, params)
            except Exception as exc:  # recall is a help, never a reason for a turn to fail
                log.warning("memory recall failed for %s: %s", request.session_key, exc)
            else:
                block = format_recall(outcome.hits, s.recall_tokens)
                if block:
                    parts.append(block)
        return "\n\n".join(parts)


def format_recall(hits: list[SearchHit], budget_tokens: int) -> str | None:
    """The recalled hits as a prompt block of at most `budget_tokens` (estimated), or None if none fit."""
    lines = [RECALL_HEADING]
    used = estimate_text(RECALL_HEADING)
    shown = 0
    for hit in hits:
        head = f"\n- {hit.path}#L{hit.start_line}-L{hit.end_line} (score {hit.score:.2f}):\n"
        body = hit.snippet.strip()
        room = budget_tokens - used - estimate_text(head) - 1
        if room < MIN_USEFUL_TOKENS:
            break
        if estimate_text(body) > room:
            body = body[: room * 4 - 2] + "…"
        entry = head + body
        lines.append(entry)
        used += estimate_text(entry)
        shown += 1
    return "".join(lines) if shown else None
