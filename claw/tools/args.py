"""Reading a tool's arguments, which come from a model and so may be any JSON.

Each helper raises `ToolArgumentError` with a message that tells the model what
to send instead; the registry turns it into an error result.
"""

from __future__ import annotations

from typing import Any

from claw.errors import ClawError


class ToolArgumentError(ClawError):
    """A tool was called with a missing or ill-typed argument."""


def str_arg(args: dict[str, Any], name: str, *, tool: str, allow_empty: bool = True) -> str:
    """The string argument `name`, which must be present."""
    value = args.get(name)
    if not isinstance(value, str):
        raise ToolArgumentError(f"{tool}: argument {name!r} must be a string (got {_kind(value)})")
    if not allow_empty and not value:
        raise ToolArgumentError(f"{tool}: argument {name!r} must not be empty")
    return value


def int_arg(args: dict[str, Any], name: str, *, tool: str, minimum: int = 1) -> int | None:
    """The optional integer argument `name` (integral floats and digit strings accepted), or None."""
    value = args.get(name)
    if value is None:
        return None
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
        number = int(value.strip())
    if number is None or number < minimum:
        raise ToolArgumentError(f"{tool}: argument {name!r} must be an integer >= {minimum} (got {value!r})")
    return number


def number_arg(args: dict[str, Any], name: str, *, tool: str) -> float | None:
    """The optional positive number argument `name`, or None."""
    value = args.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ToolArgumentError(f"{tool}: argument {name!r} must be a positive number (got {value!r})")
    return float(value)


def _kind(value: Any) -> str:
    return "nothing" if value is None else type(value).__name__
