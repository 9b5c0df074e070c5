"""Time zones by IANA name: checking a `--tz`, finding the host's own, showing an instant.

The zone data comes from the system (/usr/share/zoneinfo) or, where that is missing,
from the `tzdata` package; nothing is downloaded.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from claw.errors import UsageError

_LOCALTIME = Path("/etc/localtime")
_TIMEZONE_FILE = Path("/etc/timezone")


@lru_cache(maxsize=256)
def zone(name: str) -> ZoneInfo:
    """The zone called `name`, or a usage error naming it."""
    if not name or name.startswith(("/", ".")) or ".." in name:
        raise UsageError(f"unknown time zone {name!r}: use an IANA name such as Europe/Paris or UTC")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise UsageError(f"unknown time zone {name!r}: use an IANA name such as Europe/Paris or UTC") from None


def host_zone_name(environ: dict[str, str] | None = None) -> str:
    """The IANA name of the host's zone: `$TZ`, else /etc/localtime's target, else /etc/timezone, else UTC."""
    env = os.environ if environ is None else environ
    candidates: list[str] = []
    tz = env.get("TZ", "").removeprefix(":")
    if tz:
        candidates.append(tz)
    try:
        target = str(_LOCALTIME.resolve())
        if "zoneinfo/" in target:
            candidates.append(target.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    try:
        candidates.append(_TIMEZONE_FILE.read_text(encoding="utf-8").strip())
    except OSError:
        pass
    for name in candidates:
        try:
            zone(name)
        except UsageError:
            continue
        return name
    return "UTC"


def local_text(ts: float | None, tz_name: str, *, seconds: bool = False) -> str:
    """`2026-12-24 18:00 CET` for epoch `ts` in zone `tz_name` ('-' for None)."""
    if ts is None:
        return "-"
    when = datetime.fromtimestamp(ts, zone(tz_name))
    return when.strftime("%Y-%m-%d %H:%M:%S %Z" if seconds else "%Y-%m-%d %H:%M %Z")


def utc_text(ts: float | None) -> str:
    if ts is None:
        return "-"
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


def iso(ts: float | None, tz_name: str = "UTC") -> str | None:
    """ISO 8601 with the zone's offset, for JSON output."""
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, zone(tz_name)).isoformat(timespec="seconds")
