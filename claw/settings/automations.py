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
    command_timeout_seconds: float = Field(
        default=600.0, gt=0, le=86400, description="how long a --command job may run"
    )
    gmail_audience: str | None = Field(
        default=None, description="the audience of the Gmail push subscription's token (by default its endpoint URL)"
    )
    gmail_service_account: str | None = Field(
        default=None, description="the service account the push subscription signs as (checked when set)"
    )
    gmail_certs_url: str = Field(
        default="https://www.googleapis.com/oauth2/v3/certs", description="where Google's token-signing keys are"
    )
