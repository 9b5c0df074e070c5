"""A transcript as one self-contained HTML page (`--format html`): readable offline, in any browser.

Everything is inline: the stylesheet (light and dark by `prefers-color-scheme`), no script, no fonts or
images fetched. Every tool call and every tool result is a `<details>` element, closed by default, so a
long session reads as its conversation and the tool traffic opens on a click. All transcript text is
escaped; nothing in a message can add markup to the page.
"""

from __future__ import annotations

from html import escape
from typing import Any

from claw.transcript_entries import trailing_partial, undone_ids
from claw.transcript_markdown import content_text, pretty_arguments

RESULT_LIMIT = 20_000  # characters of one tool result kept in the page

_STYLE = """
:root { color-scheme: light dark; --fg: #1d1f21; --bg: #fdfdfd; --dim: #6a737d; --user: #e8f0fe; --line: #d0d7de; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --bg: #0d1117; --dim: #8b949e; --user: #1f2a3a; --line: #30363d; }
}
body { font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); max-width: 52rem;
  margin: 2rem auto; padding: 0 1rem; }
.msg { border-left: 3px solid var(--line); margin: 1rem 0; padding: .25rem .75rem; }
.user { background: var(--user); border-color: #4a7bd0; }
.assistant { border-color: #3fa66b; }
.system, .compaction { border-color: #a66bd0; color: var(--dim); }
.undone { opacity: .55; }
.meta { color: var(--dim); font-size: .85em; }
pre { white-space: pre-wrap; word-break: break-word; background: rgba(127,127,127,.1); padding: .5rem; }
.text { white-space: pre-wrap; }
details { margin: .4rem 0; } summary { cursor: pointer; color: var(--dim); }
"""


def transcript_to_html(entries: list[dict[str, Any]], *, title: str, result_limit: int = RESULT_LIMIT) -> str:
    """The whole page for `entries` (as `chat.history` returns them)."""
    undone = undone_ids(entries)
    body = [f"<h1>{escape(title)}</h1>"]
    for entry in entries:
        body.append(_render(entry, entry.get("id") in undone, result_limit))
    streaming = trailing_partial(entries)
    if streaming is not None:
        body.append(_message("assistant", "Assistant (still streaming)", "", _text_block(streaming), False))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width"><title>{escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body>\n" + "\n".join(part for part in body if part) + "\n</body></html>\n"
    )


def _render(entry: dict[str, Any], undone: bool, limit: int) -> str:
    if entry.get("type") == "compaction":
        summary = content_text(entry.get("summary"))
        return _message("compaction", "Compaction summary (earlier turns, summarised)", "", _text_block(summary), False)
    role = entry.get("role")
    if role is None:
        return ""
    when = str(entry.get("createdAt") or "")
    if role == "tool":
        label = "Tool error" if entry.get("isError") else "Tool result"
        summary = f"{label}: {entry.get('name', '?')} ({entry.get('toolCallId', '')})"
        content = content_text(entry.get("content"))
        if len(content) > limit:
            content = f"{content[:limit]}\n… [{len(content) - limit} more characters cut]"
        return _details("tool-result", summary, content, undone)
    parts = []
    thought = entry.get("thinking")
    if role == "assistant" and isinstance(thought, str) and thought:  # the model's reasoning, folded, apart
        parts.append(_details("thinking", "Thinking (not part of the reply)", thought))
    text = content_text(entry.get("display") if role == "user" and entry.get("display") else entry.get("content"))
    if text:
        parts.append(_text_block(text))
    if entry.get("aborted") or entry.get("interrupted"):
        parts.append('<p class="meta">(this reply did not finish)</p>')
    for call in entry.get("toolCalls") or []:
        if isinstance(call, dict):
            arguments = pretty_arguments(call.get("arguments"))
            parts.append(_details("tool-call", f"Tool call: {call.get('name', '?')} ({call.get('id', '')})", arguments))
    heading = str(role).title() + (" (undone)" if undone else "")
    return _message(str(role), heading, when, "".join(parts), undone)


def _message(kind: str, heading: str, when: str, inner: str, undone: bool) -> str:
    classes = f"msg {escape(kind)}" + (" undone" if undone else "")
    meta = f' <span class="meta">{escape(when)}</span>' if when else ""
    return f'<section class="{classes}"><div><strong>{escape(heading)}</strong>{meta}</div>{inner}</section>'


def _details(kind: str, summary: str, content: str, undone: bool = False) -> str:
    extra = " undone" if undone else ""
    return f'<details class="{kind}{extra}"><summary>{escape(summary)}</summary><pre>{escape(content)}</pre></details>'


def _text_block(text: str) -> str:
    return f'<div class="text">{escape(text)}</div>'
