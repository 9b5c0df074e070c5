"""What one `claw doctor` check found: a name, ok | warn | fail, what was seen, and what to do about it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Status = Literal["ok", "warn", "fail"]

SKIPPED = "skipped: config does not load"


@dataclass(frozen=True, slots=True)
class Finding:
    """One check's result; `fix` (for warn and fail) is the command or config key that repairs it."""

    name: str
    status: Status
    detail: str
    fix: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}


def ok(name: str, detail: str) -> Finding:
    return Finding(name, "ok", detail)


def warn(name: str, detail: str, fix: str) -> Finding:
    return Finding(name, "warn", detail, fix)


def fail(name: str, detail: str, fix: str) -> Finding:
    return Finding(name, "fail", detail, fix)


def skipped(name: str, reason: str = SKIPPED) -> Finding:
    """A check that needs the config, when the config (or the agent in it) is not usable."""
    return warn(name, reason, "fix the config first (see the config check)")


def combine(name: str, problems: Sequence[Finding], healthy: str) -> Finding:
    """One finding for several problems of one check: the worst status, details and fixes joined on one line."""
    if not problems:
        return ok(name, healthy)
    status: Status = "fail" if any(p.status == "fail" for p in problems) else "warn"
    fixes = list(dict.fromkeys(p.fix for p in problems if p.fix))
    return Finding(name, status, "; ".join(p.detail for p in problems), "; ".join(fixes) or None)


def agent_key(agent_id: str, key: str) -> str:
    """The config key that sets `key` for `agent_id` (the main agent's settings live in `[agents.defaults]`)."""
    return f"agents.defaults.{key}" if agent_id == "main" else f"agents.list.{agent_id}.{key}"


def listed(items: Sequence[str], limit: int = 3) -> str:
    """`a, b, c and 4 more`: a list that stays one readable line."""
    shown = ", ".join(items[:limit])
    return shown if len(items) <= limit else f"{shown} and {len(items) - limit} more"
