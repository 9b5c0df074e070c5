"""Pruning old tool results in the prompt only; the transcript always keeps them whole.

Once the history takes more than `softTrimRatio` of the window, large tool results older
than the last `keepLastAssistants` assistant messages are cut to head + tail; if it still
takes more than `hardClearRatio` (and there is enough old tool output to matter), those
results are replaced by a placeholder, oldest first, until it fits under that ratio.
This runs before compaction is considered, so cheap pruning goes before summarising.
Units that change are copies: the history view's cached units are never modified.
"""

from __future__ import annotations

from typing import Any

from claw.agent.history import Unit
from claw.agent.tokens import chars_for_tokens
from claw.config import PruningSettings

CLEARED = "[Old tool result content cleared]"


def prune_units(units: list[Unit], window_tokens: int, s: PruningSettings) -> list[Unit]:
    """`units`, with old tool results trimmed or cleared as described above (same length and order)."""
    if not s.enabled or not units:
        return units
    window_chars = max(1, chars_for_tokens(window_tokens))
    total = sum(u.chars for u in units)
    if total < s.soft_trim_ratio * window_chars:
        return units
    prunable = _prunable(units, s.keep_last_assistants)
    out = list(units)
    contents: dict[tuple[int, int], str] = {}
    for ui, mi in prunable:
        text = _text(units[ui].messages[mi])
        if len(text) > s.soft_trim_max_chars:
            trimmed = _soft_trim(text, s.soft_trim_max_chars)
            total -= len(text) - len(trimmed)
            contents[(ui, mi)] = trimmed
    old_chars = sum(len(contents.get(key, _text(units[key[0]].messages[key[1]]))) for key in prunable)
    if total >= s.hard_clear_ratio * window_chars and old_chars >= s.min_prunable_chars:
        for key in prunable:
            if total < s.hard_clear_ratio * window_chars:
                break
            current = contents.get(key, _text(units[key[0]].messages[key[1]]))
            total -= len(current) - len(CLEARED)
            contents[key] = CLEARED
    for (ui, mi), text in contents.items():
        if out[ui] is units[ui]:
            out[ui] = _copy(units[ui])
        out[ui].messages[mi] = {**out[ui].messages[mi], "content": text}
    for ui in {ui for ui, _ in contents}:
        out[ui].seal()  # recounts its tokens
    return out


def _prunable(units: list[Unit], keep_last_assistants: int) -> list[tuple[int, int]]:
    """(unit, message) positions of tool results older than the protected recent assistant messages."""
    boundary = len(units)
    seen = 0
    for ui in range(len(units) - 1, -1, -1):
        if seen >= keep_last_assistants:
            break
        if any(m.get("role") == "assistant" for m in units[ui].messages):
            seen += 1
            boundary = ui
    if seen < keep_last_assistants:
        return []
    return [
        (ui, mi)
        for ui in range(boundary)
        for mi, m in enumerate(units[ui].messages)
        if m.get("role") == "tool" and isinstance(m.get("content"), str)
    ]


def _soft_trim(text: str, max_chars: int) -> str:
    keep = max_chars * 3 // 8
    note = f"\n...\n[Tool result trimmed: kept the first {keep} and last {keep} of {len(text)} chars]"
    return text[:keep] + note + "\n" + text[-keep:]


def _copy(unit: Unit) -> Unit:
    messages = [dict(m) for m in unit.messages]
    return Unit(messages, unit.first_id, unit.starts_turn, run_id=unit.run_id, tokens=unit.tokens, chars=unit.chars)


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""
