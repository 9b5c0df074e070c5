"""A transcript as readable Markdown, for `claw sessions export` and the console's `/export`.

Pure rendering of the entries `chat.history` returns, so that both clients render through the
gateway API: neither the CLI nor the console reads the store for it.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from claw.transcript_entries import REASONS, trailing_partial, undone_ids

RESULT_LIMIT = 4000  # characters of one tool result kept in an export

_HEADINGS = {"user": "User", "assistant": "Assistant", "system": "System"}


def transcript_to_markdown(entries: list[dict[str, Any]], *, title: str, result_limit: int = RESULT_LIMIT) -> str:
    """Render transcript entries as Markdown.

    Messages get a heading each; an assistant's tool calls follow its text with their
    arguments as JSON; tool results are fenced and cut to `result_limit` characters;
    compaction summaries are marked as such; a turn that never finished is marked interrupted,
    and a reply still streaming (partial entries at the end) is shown as such. Entries of unknown
    kinds, and partials that a later entry supersedes, are left out.
    """
    lines = [f"# {title}", ""]
    stamps = [entry["createdAt"] for entry in entries if isinstance(entry.get("createdAt"), str)]
    if stamps:
        lines += [f"_{_when(stamps[0])} – {_when(stamps[-1])}_", ""]
    undone = undone_ids(entries)
    for entry in entries:
        lines += _render(entry, result_limit, entry.get("id") in undone)
    streaming = trailing_partial(entries)
    if streaming is not None:
        lines += ["## Assistant (still streaming)", "", streaming, ""]
    return "\n".join(lines).rstrip() + "\n"


def _render(entry: dict[str, Any], limit: int, undone: bool = False) -> list[str]:
    if entry.get("type") == "compaction":
        summary = content_text(entry.get("summary"))
        quoted = [f"> {line}" if line else ">" for line in summary.splitlines()]
        marker = "> **Compaction summary** (earlier turns, summarised)"
        return ["---", "", marker, ">", *quoted, "", "---", ""]
    role = entry.get("role")
    if role is None:
        return []
    if role == "tool":
        return _tool_result(entry, limit)
    heading = _HEADINGS.get(str(role), str(role).title())
    stamp = entry.get("createdAt")
    mark = " (undone)" if undone else ""  # /undo took it out of the model's history; the record keeps it
    lines = [f"## {heading}{mark}" + (f" · {_when(stamp)}" if isinstance(stamp, str) else ""), ""]
    text = content_text(entry.get("content"))
    thought = entry.get("thinking")
    if isinstance(thought, str) and thought:  # the model's reasoning, folded away from the reply
        lines += ["<details><summary>Thinking</summary>", "", thought, "", "</details>", ""]
    if text:
        lines += [text, ""]
    if entry.get("aborted"):
        lines += ["_(aborted)_", ""]
    if entry.get("interrupted"):
        lines += [f"_({interrupted_label(entry)})_", ""]
    for call in entry.get("toolCalls") or []:
        if not isinstance(call, dict):
            continue
        lines += [f"**Tool call** `{call.get('name', '?')}` (`{call.get('id', '')}`)", ""]
        lines += [*_fenced(pretty_arguments(call.get("arguments")), "json"), ""]
    return lines


def interrupted_label(entry: dict[str, Any]) -> str:
    """`interrupted: <why>` for the entry closing a turn that never finished (shown by `claw sessions show` too)."""
    why = REASONS.get(str(entry.get("reason")), "the turn did not finish")
    error = entry.get("error")
    return f"interrupted: {why}" + (f" ({error})" if isinstance(error, str) and error else "")


def _tool_result(entry: dict[str, Any], limit: int) -> list[str]:
    label = "Tool error" if entry.get("isError") else "Tool result"
    header = f"**{label}** `{entry.get('name', '?')}` (`{entry.get('toolCallId', '')}`)"
    return [header, "", *_fenced(_cut(content_text(entry.get("content")), limit), ""), ""]


def content_text(content: Any) -> str:
    """A message's text: a string, the text parts of a content list, or anything else as JSON."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts: keep the text ones
        parts = [part.get("text", "") for part in content if isinstance(part, dict)]
        return "\n".join(part for part in parts if isinstance(part, str) and part)
    return json.dumps(content, ensure_ascii=False, indent=2)


def pretty_arguments(arguments: Any) -> str:
    """Tool-call arguments as indented JSON (the model's raw string as it was, when it is not JSON)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return arguments  # the model's raw string, shown as it was
    return json.dumps(arguments, ensure_ascii=False, indent=2)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n… [{len(text) - limit} more characters cut]"


def _fenced(text: str, lang: str) -> list[str]:
    # A fence longer than any backtick run inside, so the content cannot close it early.
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{lang}", text, fence]


def _when(stamp: str) -> str:
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
