"""Small text helpers shared by the console's widgets: durations, times, token counts, argument summaries."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from claw.untrusted import shown


def short_args(args: Any, limit: int = 72) -> str:
    """A one-line summary of a tool call's arguments: `command="ls -la"`, long values elided."""
    if isinstance(args, dict):
        if len(args) == 1:  # one argument: its value alone says it best (`ls -la`, `SOUL.md`)
            text = _one_line(next(iter(args.values())))
        else:
            text = " ".join(f"{key}={_one_line(value)}" for key, value in args.items())
    else:
        text = _one_line(args)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _one_line(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return " ".join(text.split())


def pretty_json(value: Any) -> str:
    """Arguments as indented JSON (a string that is not JSON is shown as it is)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return value
    return json.dumps(value, ensure_ascii=False, indent=2)


def duration(seconds: float) -> str:
    """`85 ms`, `1.2 s`, `2m 05s`."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes}m {rest:02d}s"


def tokens(count: int) -> str:
    """`950`, `12.3k`, `1.2M`."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def parse_time(stamp: str | int | float | None) -> datetime | None:
    """An ISO-8601 time, or milliseconds since the epoch (the gateway's clock on the wire), as a datetime."""
    if stamp is None or stamp == "":
        return None
    if isinstance(stamp, int | float):
        return datetime.fromtimestamp(stamp / 1000, UTC)
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def ago(stamp: str | int | float | None, now: datetime | None = None) -> str:
    """How long ago a time (ISO-8601, or ms since the epoch) was: `now`, `5m`, `3h`, `2d`, or the date."""
    moment = parse_time(stamp)
    if moment is None:
        return ""
    seconds = ((now or datetime.now(UTC)) - moment).total_seconds()
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{int(seconds // 60)}m"
    if seconds < 86400:
        return f"{int(seconds // 3600)}h"
    if seconds < 7 * 86400:
        return f"{int(seconds // 86400)}d"
    return moment.astimezone().strftime("%Y-%m-%d")


def short_key(session_key: str) -> str:
    """`agent:main:work` → `work`; keys of other shapes keep everything after the agent id. A key carries
    names from outside (a channel's peer or thread id): control and bidi characters show as escapes."""
    parts = session_key.split(":", 2)
    return shown(parts[2] if len(parts) == 3 and parts[0] == "agent" else session_key)


def gap(start: datetime | None, end: datetime | None) -> float | None:
    """Seconds between two times, when both are known."""
    if start is None or end is None:
        return None
    return max(0.0, (end - start).total_seconds())
