"""`Supervisor`: what `claw gateway install|start|stop|restart|status|uninstall` ask of the platform's service
manager; `supervisor()` picks systemd (Linux) or launchd (macOS)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Protocol

from claw.errors import ClawError
from claw.service.spec import ServiceSpec


class Supervisor(Protocol):
    name: str
    unit_file: Path

    def render(self, spec: ServiceSpec) -> str: ...
    def install(self, spec: ServiceSpec) -> None: ...
    def start(self) -> None: ...
    def stop(self) -> None: ...
    def restart(self) -> None: ...
    def uninstall(self) -> None: ...
    def status(self) -> dict[str, object]: ...
    def lingering(self) -> bool | None: ...


def supervisor(platform: str | None = None, logs_dir: Path | None = None) -> Supervisor:
    """`logs_dir`: where the gateway's logs (and the unit's record of its last exit) are."""
    platform = platform or sys.platform
    if platform.startswith("linux"):
        from claw.service.systemd import SystemdUser

        return SystemdUser(exit_path=None if logs_dir is None else logs_dir / "gateway.exit")
    if platform == "darwin":
        from claw.service.launchd import LaunchdAgent

        return LaunchdAgent()
    raise ClawError(f"`claw gateway install` supports systemd (Linux) and launchd (macOS), not {platform}")
