"""What `claw doctor model` tests and what it reports: `Target` (the model and how a turn would call it) and
`ModelReport` (the lines and the numbers behind them). Shared by the runner (claw/doctor/model.py) and its checks
(claw/doctor/model_checks.py), below both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from claw.finding import Finding
from claw.providers.openai_compat import OpenAICompatProvider
from claw.providers.refs import ModelRef


@dataclass(slots=True)
class ModelReport:
    """The lines, in `model_checks.NAMES` order, and the numbers behind them (for `--json`)."""

    ref: str
    url: str
    findings: list[Finding] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not any(f.status == "fail" for f in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "model": self.ref,
            "endpoint": self.url,
            "checks": [f.to_json() for f in self.findings],
            "stats": self.stats,
            "seconds": round(self.seconds, 3),
        }


@dataclass(slots=True)
class Target:
    """The model under test and everything a turn would use to call it."""

    ref: str
    model: ModelRef
    provider: OpenAICompatProvider
    url: str
    kind: str | None
    reported: int | None
    window: int
    window_source: str
    reserve: int
    extra_body: dict[str, Any] | None
    timeout: float
    mode: str = "full"
    """`small` when the window gets claw's small-window prompt."""
    fixed_tokens: int | None = None
    """claw's fixed prompt (rules, bootstrap files, built-in tool schemas) at the window, in the server's tokens."""
