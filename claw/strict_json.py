"""Strict JSON for untrusted input (WebSocket frames, HTTP bodies).

Python's `json` accepts `NaN`, `Infinity` and duplicate keys, and recurses on nesting;
here each of those is a clear `JsonError` instead, and nesting is capped.
"""

from __future__ import annotations

import json
from typing import Any

from claw.errors import ClawError

MAX_DEPTH = 64


class JsonError(ClawError, ValueError):
    """The input is not acceptable JSON; the message says why, for the sender."""


def _no_constant(name: str) -> Any:
    raise JsonError(f"{name} is not valid JSON")


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JsonError(f"duplicate key {key[:64]!r}")
        out[key] = value
    return out


def loads_strict(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse `text`; raise `JsonError` for bad syntax, NaN/Infinity, duplicate keys or nesting over `max_depth`."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise JsonError("not valid UTF-8") from None
    try:
        value = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_unique_pairs)
    except RecursionError:
        raise JsonError(f"nesting too deep (over {max_depth} levels)") from None
    except json.JSONDecodeError as exc:
        raise JsonError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    if _depth_exceeds(value, max_depth):
        raise JsonError(f"nesting too deep (over {max_depth} levels)")
    return value


def _depth_exceeds(value: Any, limit: int) -> bool:
    """Iterative, so a deep value cannot exhaust the stack here either."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
