"""Durations as people type them: `30s`, `20m`, `2h`, `1d`, `1h30m`, `1w`."""

from __future__ import annotations

import re

from claw.errors import UsageError

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_PART = re.compile(r"(\d+(?:\.\d+)?)([smhdw])")
_WHOLE = re.compile(r"(?:\d+(?:\.\d+)?[smhdw])+")


def parse_duration(text: str, *, what: str = "duration") -> float:
    """Seconds in `text`; a usage error for anything else (no unit, negative, zero, junk)."""
    cleaned = text.strip().lower().replace(" ", "")
    if cleaned.startswith("-"):
        raise UsageError(f"invalid {what} {text!r}: must be more than 0")
    if not _WHOLE.fullmatch(cleaned):
        raise UsageError(f"invalid {what} {text!r}: use a number and a unit, e.g. 30s, 20m, 2h, 1d, 1h30m")
    seconds = sum(float(n) * _UNITS[unit] for n, unit in _PART.findall(cleaned))
    if seconds <= 0:
        raise UsageError(f"invalid {what} {text!r}: must be more than 0")
    return seconds


def looks_like_duration(text: str) -> bool:
    return bool(_WHOLE.fullmatch(text.strip().lower().replace(" ", "")))


def format_duration(seconds: float) -> str:
    """`1h30m`, `45s`, `2d`: the shortest exact spelling of whole seconds."""
    total = round(seconds)
    if total <= 0:
        return "0s"
    parts = []
    for unit in ("w", "d", "h", "m", "s"):
        size = _UNITS[unit]
        count, total = divmod(total, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts)
