"""A transcript (from `chat.history`) as conversation widgets: messages, finished tool cards, notices."""

from __future__ import annotations

import json
from typing import Any

from textual.widget import Widget

from claw.transcript_entries import UNDO, undone_ids
from claw.transcript_markdown import interrupted_label
from claw.tui.format import gap, parse_time
from claw.tui.markdown_chunks import chunks
from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.conversation.thinking_block import ThinkingBlock
from claw.tui.widgets.conversation.tool_card import ToolCard
from claw.tui.widgets.conversation.user_message import UserMessage


def content_text(content: Any) -> str:
    """A message's text: a string, or the text parts of a content list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return json.dumps(content, ensure_ascii=False)


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def history_widgets(entries: list[dict[str, Any]]) -> list[Widget]:
    """Widgets for `entries`, in order. A tool result finishes the card of its call; the card's
    duration is the time between the call and its result as the transcript recorded them."""
    out: list[Widget] = []
    calls: dict[str, tuple[ToolCard, Any]] = {}
    undone = undone_ids(entries)  # /undo: out of the active history, so out of the conversation shown
    for entry in entries:
        if entry.get("type") == "compaction":
            out.append(Notice("… earlier turns were summarised (compaction)"))
            continue
        if entry.get("type") == UNDO:
            out.append(Notice("↶ an exchange was undone here (the transcript keeps it; sessions show marks it)"))
            continue
        if entry.get("id") in undone:
            continue
        role = entry.get("role")
        if role == "user":
            out.append(UserMessage(str(entry.get("display") or content_text(entry.get("content")))))
        elif role == "assistant":
            if isinstance(entry.get("thinking"), str) and entry["thinking"]:  # the reasoning, collapsed
                out.append(ThinkingBlock(entry["thinking"], finished=True))
            text = content_text(entry.get("content"))
            if text or entry.get("aborted"):
                pieces = chunks(text)
                for n, piece in enumerate(pieces, 1):
                    note = "⏹ aborted" if entry.get("aborted") and n == len(pieces) else None
                    out.append(AssistantMessage(piece, note=note, continuation=n > 1))
            if entry.get("interrupted"):  # a turn that failed or was cut off: said, as `sessions show` says it
                failed = entry.get("reason") == "error"
                mark = "✗" if failed else "⏹"
                out.append(Notice(f"{mark} {interrupted_label(entry)}", "error" if failed else "warning"))
            for call in entry.get("toolCalls") or []:
                card = ToolCard(str(call.get("id", "")), str(call.get("name", "?")), _arguments(call.get("arguments")))
                calls[card.call_id] = (card, entry.get("createdAt"))
                out.append(card)
        elif role == "tool":
            found = calls.get(str(entry.get("toolCallId", "")))
            if found is not None:
                card, called_at = found
                elapsed = gap(parse_time(called_at), parse_time(entry.get("createdAt")))
                card.finish(
                    is_error=bool(entry.get("isError")), result=content_text(entry.get("content")), elapsed=elapsed
                )
        elif role == "system":
            out.append(Notice(content_text(entry.get("content"))))
    for card, _ in calls.values():
        if card.status == "running":  # a call whose result never made it into the transcript
            card.finish(is_error=True, result="(no result recorded)", elapsed=None)
    return out


def user_inputs(entries: list[dict[str, Any]]) -> list[str]:
    """What the user typed in these entries, oldest first (to seed Up/Down history)."""
    return [str(e.get("display") or content_text(e.get("content"))) for e in entries if e.get("role") == "user"]
