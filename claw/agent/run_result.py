"""What a run of the runtime comes to: a `RunResult`, or `RunFailed` with the reason.

The runtime reports only what it knows — the reply and the tokens it cost. The core turns
either into its own outcome (claw/gateway/runs.py `RunOutcome`: status, times, the terminal
event's detail), so the runtime never depends on how the core records runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from claw.errors import ClawError


@dataclass(frozen=True, slots=True)
class RunResult:
    """The run replied: its final text and the tokens its model calls used (`input`, `output`)."""

    text: str
    usage: dict[str, int] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)
    """Extra fields of the `end` event: `truncated: "length"` when the output limit cut the reply."""


class RunFailed(ClawError):
    """The run could not produce a reply; `message` says why, for the user."""

    def __init__(self, message: str, usage: dict[str, int] | None = None, *, code: str | None = None) -> None:
        super().__init__(message)
        self.usage = usage or {}
        self.code = code
        """A machine-readable reason for clients (`no_model`: the user must configure a model)."""
