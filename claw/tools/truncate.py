"""Cutting long tool output down to size, keeping its beginning and its end.

The head usually says what a thing is and the tail how it ended (a traceback, an
exit status), so a long text keeps about 70% head and 20% tail, with one visible
marker line between them that says how much was cut. The cut text never exceeds
`max_chars`, marker included.
"""

from __future__ import annotations

from claw.config import AgentSettings

HEAD_SHARE = 0.7
TAIL_SHARE = 0.2


def truncation_marker(label: str, head: int, tail: int, total: int) -> str:
    """The line that stands in for the cut middle of a text."""
    return f"\n[... truncated {label}: kept {head}+{tail} of {total} chars ...]\n"


def split_budget(max_chars: int, label: str, total: int) -> tuple[int, int]:
    """How many head and tail chars to keep of `total` so that head + marker + tail fits `max_chars`."""
    head = int(max_chars * HEAD_SHARE)
    tail = int(max_chars * TAIL_SHARE)
    room = max_chars - len(truncation_marker(label, head, tail, total))
    if room <= 0:
        return 0, 0
    if head + tail > room:
        # Only a tiny limit or a long label gets here; shrinking numbers never lengthens the marker.
        scale = room / (head + tail)
        head, tail = int(head * scale), int(tail * scale)
    return head, tail


def cut_head_tail(text: str, max_chars: int, *, label: str) -> str:
    """`text` unchanged if it fits in `max_chars`, else its head, a marker line and its tail."""
    total = len(text)
    if total <= max_chars:
        return text
    head, tail = split_budget(max_chars, label, total)
    if head == 0 and tail == 0:
        return text[:max_chars]
    end = text[total - tail :] if tail else ""
    return text[:head] + truncation_marker(label, head, tail, total) + end


def result_limit(settings: AgentSettings) -> int:
    """The most characters one tool result may put into the context.

    `tools.result_max_chars` when configured; otherwise 30% of the context window
    at ~4 chars per token, kept between 2,000 and 400,000 chars.
    """
    configured = settings.tools.result_max_chars
    if configured is not None:
        return configured
    return min(400_000, max(2_000, int(0.3 * settings.context_tokens * 4)))
