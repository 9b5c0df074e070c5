"""`[automations]` in config.toml: the scheduler inside the gateway."""

from __future__ import annotations

from pydantic import Field

from claw.settings_base import Section


class AutomationSettings(Section):
    """`[automations]`: the scheduler inside the gateway (`claw automations …`)."""

    enabled: bool = Field(default=True, description="run scheduled jobs (CLAW_SKIP_AUTOMATIONS=1 also turns it off)")
    min_every_seconds: float = Field(default=60.0, gt=0, description="shortest interval `--every` accepts")
    poll_seconds: float = Field(default=1.0, gt=0, le=60, description="how often to look for jobs changed elsewhere")
    webhook_timeout_seconds: float = Field(default=10.0, gt=0)
    webhook_retry_seconds: tuple[float, ...] = Field(
        default=(1.0, 5.0, 30.0), description="waits between webhook delivery attempts"
    )
    keep_runs: int = Field(default=2000, ge=1, description="ledger rows kept per job")
