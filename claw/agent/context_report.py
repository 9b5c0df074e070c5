"""What `/context` shows: the prompt's token estimate per section, against the model's window.

The rows are the system prompt's parts (claw's base rules, each bootstrap file, the memory
section with its recall results, skills), the tool schemas, the history, the current
message and the reserve for the reply. They add up to `total`, and `total + free` is the
window: nothing is counted twice or left out.
"""

from __future__ import annotations

from typing import Any

from claw.agent.context import AssembledContext
from claw.agent.tokens import chars_per_token
from claw.agent.truncation_check import truncation_message

LABELS = {
    "base": "base prompt (claw rules)",
    "memory": "memory (rule + recall)",
    "skills": "skills list",
    "tool schemas": "tool schemas",
    "history": "history",
    "current message": "current message",
    "reserve": "reserve for the reply",
}


def context_report(
    prompt: AssembledContext,
    *,
    session_key: str,
    model: str | None,
    window_source: str,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The breakdown as JSON (what `sessions.context` returns)."""
    rows = [{"name": s.name, "tokens": s.tokens} for s in prompt.sections]
    total = sum(s.tokens for s in prompt.sections)
    return {
        "sessionKey": session_key,
        "model": model,
        "window": prompt.window,
        "windowSource": window_source,
        "sections": rows,
        "total": total,
        "free": prompt.window - total,
        "fullTokens": prompt.full_tokens,
        "droppedUnits": prompt.dropped_units,
        "mode": prompt.mode,
        "tokenCounting": prompt.counting,
        "charsPerToken": round(chars_per_token(), 2),
        **(extra or {}),
    }


def render_report(report: dict[str, Any]) -> str:
    """The breakdown as an aligned text table for a terminal or a chat."""
    window = report["window"]
    source = {
        "config": "from config",
        "server": "reported by the server",
        "known": "known model",
        "default": "unknown model: conservative default",
    }
    counting = {
        "tokenizer": "counted at {cpt} chars/token, measured by the server's tokenizer",
        "usage": "counted at {cpt} chars/token, calibrated from the server's last prompt count",
    }.get(report.get("tokenCounting", ""), "estimates at ~{cpt} chars/token")
    mode = " · small-window mode (short prompt, fewer tools)" if report.get("mode") == "small" else ""
    lines = [
        f"Context for {report['sessionKey']} · model {report['model'] or 'not configured'}",
        f"Window {window:,} tokens ({source.get(report['windowSource'], report['windowSource'])}){mode}; "
        + counting.format(cpt=f"{report.get('charsPerToken', 4):g}"),
        "",
    ]
    for row in report["sections"]:
        label = LABELS.get(row["name"], row["name"])
        lines.append(f"  {label:<28}{row['tokens']:>9,}  {_pct(row['tokens'], window)}")
    lines.append("  " + "─" * 45)
    lines.append(f"  {'total':<28}{report['total']:>9,}  {_pct(report['total'], window)}")
    free = report["free"]
    lines.append(f"  {'free' if free >= 0 else 'over the window by':<28}{abs(free):>9,}  {_pct(abs(free), window)}")
    notes = []
    if report.get("droppedUnits"):
        full = report["fullTokens"]
        if report.get("compactionEnabled"):
            notes.append(f"the history since the last compaction needs ~{full:,} tokens: the next turn compacts it")
        else:
            notes.append(f"{report['droppedUnits']} older history parts do not fit and are left out")
    if report.get("compactions"):
        notes.append(f"compacted {report['compactions']} time(s)")
    if report.get("memoryFlush") is not None:
        notes.append(f"memory flush this cycle: {'done' if report['memoryFlush'] else 'not yet'}")
    if notes:
        lines += ["", "; ".join(notes).capitalize() + "."]
    truncated = report.get("promptTruncated")
    if truncated:  # the server cut a prompt of this session (claw/agent/truncation_check.py)
        lines += ["", f"Warning: {truncation_message(truncated)} (seen {truncated.get('at')})."]
    return "\n".join(lines)


def _pct(tokens: int, window: int) -> str:
    return f"{100 * tokens / window:5.1f}%" if window else ""
