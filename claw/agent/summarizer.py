"""Summarising history with the model, in chunks small enough for its window.

The history to summarise is rendered as plain text, one unit (a user message, or an
assistant message with its tool results) at a time, and packed into chunks that fit half
of what the window leaves after the reserve. Each chunk is summarised together with the
summary so far, so a history far larger than the window still ends in one summary, and an
earlier compaction summary is re-distilled rather than copied. If the model still reports
an overflow, the chunks are halved and that step retried.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from claw.agent.history import Unit
from claw.agent.tokens import chars_for_tokens, estimate_text
from claw.providers.base import ModelError, TextDelta
from claw.providers.failover import ModelRouter
from claw.providers.text_tools.stream import reply_only
from claw.tools.truncate import cut_head_tail

SUMMARY_SYSTEM = """You compact conversations between a user and an AI assistant, so that the assistant can \
go on working with a summary in place of the older messages. Write a faithful, compact summary in Markdown:
- the user's goals and requests, and which are still open;
- decisions made, and why;
- facts learned: names, file paths, identifiers, numbers, dates, commands, errors (exactly as written);
- the current state of the work and the next steps.
Do not invent anything and do not address the user. Stay under {words} words."""

TOOL_RESULT_CHARS = 2_000  # a tool result is shown to the summariser cut to head + tail
MIN_CHUNK_TOKENS = 256
MAX_ATTEMPTS = 4

OnFailover = Callable[[str, str, ModelError], Awaitable[None]]


def render_unit(unit: Unit) -> str:
    """One history unit as text for the summariser."""
    lines: list[str] = []
    for m in unit.messages:
        role = m.get("role")
        content = m.get("content") if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
        if role == "tool":
            lines.append(f"[tool result] {cut_head_tail(content or '', TOOL_RESULT_CHARS, label='tool result')}")
            continue
        if content:
            lines.append(f"[{role}] {content}")
        for call in m.get("tool_calls") or ():
            fn = call.get("function", {})
            lines.append(f"[assistant calls {fn.get('name')}] {fn.get('arguments', '')}")
    return "\n".join(lines)


def pack(texts: list[str], chunk_tokens: int) -> list[list[str]]:
    """Consecutive texts grouped into chunks of at most `chunk_tokens` (a text too long alone is cut)."""
    limit = chars_for_tokens(max(MIN_CHUNK_TOKENS, chunk_tokens))
    chunks: list[list[str]] = []
    current: list[str] = []
    size = 0
    for text in texts:
        text = cut_head_tail(text, limit, label="message")
        if current and size + len(text) + 2 > limit:
            chunks.append(current)
            current, size = [], 0
        current.append(text)
        size += len(text) + 2
    if current:
        chunks.append(current)
    return chunks


async def summarize(
    router: ModelRouter,
    chain: list[str],
    units: list[Unit],
    *,
    previous: str | None,
    focus: str | None,
    room_tokens: int,
    on_failover: OnFailover,
) -> str:
    """A summary of `units` (folding in `previous`), made in as many model calls as the room requires.

    `room_tokens` is what the window leaves after the reserve for the reply."""
    texts = [t for t in (render_unit(u) for u in units) if t]
    words = max(150, min(1_500, room_tokens // 8))
    summary = previous
    position = 0
    attempts = 0  # each overflow halves the chunks
    while position < len(texts):
        room = room_tokens // 2 - estimate_text(summary or "") - 400
        chunk_tokens = max(MIN_CHUNK_TOKENS, room >> attempts)
        first = pack(texts[position:], chunk_tokens)[0]
        try:
            summary = await _call(router, chain, _prompt("\n\n".join(first), summary, focus, words), on_failover)
        except ModelError as exc:
            attempts += 1
            if exc.kind != "overflow" or attempts >= MAX_ATTEMPTS or chunk_tokens <= MIN_CHUNK_TOKENS:
                raise
            continue
        position += len(first)
    return (summary or "").strip()


def _prompt(chunk: str, summary: str | None, focus: str | None, words: int) -> list[dict[str, Any]]:
    parts = []
    if focus:
        parts.append(f"The user asked for this compaction with a focus; keep it in mind:\n{focus}")
    if summary:
        parts.append(f"Summary of the conversation so far:\n{summary}")
        parts.append(f"The conversation continued:\n{chunk}")
        parts.append("Write one updated summary covering everything above.")
    else:
        parts.append(f"The conversation:\n{chunk}")
        parts.append("Write the summary.")
    return [
        {"role": "system", "content": SUMMARY_SYSTEM.format(words=words)},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


async def _call(router: ModelRouter, chain: list[str], messages: list[dict[str, Any]], on_failover: OnFailover) -> str:
    parts: list[str] = []
    async for _ref, delta in router.stream(chain, messages, [], on_failover):
        if isinstance(delta, TextDelta):
            parts.append(delta.text)
    text = reply_only(parts).strip()  # a reasoning model's <think> block is not part of the summary
    if not text:
        raise ModelError("other", "the model returned an empty summary")
    return text
