"""`[hooks]` in config.toml: the lifecycle hooks switch, their timeout and `[hooks.entries.<name>]`."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from claw.settings_base import Name, Section

HookSourceName = Literal["workspace", "managed", "bundled"]


class HookEntry(Section):
    """Per-hook settings under `[hooks.entries.<name>]` (written by `claw hooks enable|disable`)."""

    enabled: bool | None = None
    """Unset: hooks in $CLAW_HOME/hooks run; bundled and workspace hooks wait until enabled."""
    source: HookSourceName | None = None
    """The copy `enabled = true` was given to; a copy from another location that shadows it stays off."""
    sha256: str | None = None
    """A workspace hook's handler.py as `claw hooks enable` saw it (hex SHA-256). The agent can write its
    workspace, so a handler.py that no longer matches does not run until the user enables the hook again."""


class HooksSettings(Section):
    """`[hooks]`: lifecycle hooks (`claw hooks ls|enable|disable`)."""

    enabled: bool = Field(default=True, description="false turns every hook off")
    timeout_seconds: float = Field(default=30.0, gt=0, le=3600, description="how long one hook may take per event")
    entries: dict[Name, HookEntry] = {}
    """By hook name (the hook's folder name, or the `name` in its HOOK.md)."""
