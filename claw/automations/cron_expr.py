"""Cron expressions: checking one (with a reason a person can act on) and its next firing in a time zone.

croniter walks the wall clock; this module turns wall-clock slots into instants so
that daylight-saving changes neither skip nor double a firing:

- a slot the clock jumps over (spring forward, 02:30 on the night 02:00 → 03:00) fires
  at the instant of the jump; several such slots fire once, together;
- a slot the clock passes twice (fall back, 01:30 on the night 02:00 → 01:00) fires on
  its first pass only — unless the hour field is `*`, where each pass is a different
  hour of real time and both fire (as Vixie cron does for wildcard jobs).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from claw.errors import UsageError

MACROS = {
    "@yearly": "0 0 1 1 *",
    "@annually": "0 0 1 1 *",
    "@monthly": "0 0 1 * *",
    "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *",
    "@midnight": "0 0 * * *",
    "@hourly": "0 * * * *",
}
FIELDS = (("minute", 0, 59), ("hour", 0, 23), ("day-of-month", 1, 31), ("month", 1, 12), ("day-of-week", 0, 7))
_MARGIN = timedelta(hours=4)  # more than any zone's daylight-saving shift
_MAX_CANDIDATES = 10_000


def normalize_cron(expr: str) -> str:
    """`expr` with single spaces and macros expanded, or a usage error saying what is wrong with it."""
    cleaned = " ".join(expr.split())
    shown = cleaned or expr
    if not cleaned:
        raise UsageError("invalid cron expression '': it is empty; e.g. '0 9 * * *' is 09:00 every day")
    cleaned = MACROS.get(cleaned.lower(), cleaned)
    fields = cleaned.split(" ")
    if len(fields) != 5:
        raise UsageError(
            f"invalid cron expression {shown!r}: expected 5 fields (minute hour day-of-month month day-of-week), "
            f"got {len(fields)}"
        )
    for value, (name, low, high) in zip(fields, FIELDS, strict=True):
        _check_field(shown, value, name, low, high)
    from croniter import croniter

    for index, (name, _low, _high) in enumerate(FIELDS):
        probe = ["*"] * 5
        probe[index] = fields[index]
        if not croniter.is_valid(" ".join(probe)):
            raise UsageError(f"invalid cron expression {shown!r}: {fields[index]!r} is not a valid {name} field")
    if not croniter.is_valid(cleaned):
        raise UsageError(f"invalid cron expression {shown!r}")
    _check_fires(shown, cleaned)
    return cleaned


def _check_field(shown: str, value: str, name: str, low: int, high: int) -> None:
    for token in value.split(","):
        base, slash, step = token.partition("/")
        if slash and (not step.isdigit() or int(step) == 0):
            raise UsageError(f"invalid cron expression {shown!r}: step {step!r} in the {name} field must be 1 or more")
        if "#" in base or "L" in base.upper():
            continue  # nth weekday / last day: croniter checks these
        for number in re.findall(r"\d+", base):
            if not low <= int(number) <= high:
                raise UsageError(f"invalid cron expression {shown!r}: {name} {number} is out of range {low}-{high}")


def _check_fires(shown: str, cleaned: str) -> None:
    from croniter import CroniterBadDateError, croniter

    try:
        croniter(cleaned, datetime(2000, 1, 1)).get_next(datetime)
    except CroniterBadDateError:
        raise UsageError(f"invalid cron expression {shown!r}: schedule never fires (no such date)") from None


def cron_next(expr: str, tz: ZoneInfo, after: float) -> float:
    """The first firing of normalised `expr` in zone `tz` strictly after epoch `after`."""
    from croniter import croniter

    both_folds = expr.split(" ")[1] == "*"
    local = datetime.fromtimestamp(after, tz)
    naive = local.replace(tzinfo=None)
    if _steady(tz, local):  # the common case: no clock change within hours of `after`
        candidate = croniter(expr, naive).get_next(datetime)
        return min(t for t in _instants(candidate, tz, both_folds) if t > after)
    walker = croniter(expr, naive - _MARGIN)
    best: float | None = None
    best_naive: datetime | None = None
    for _ in range(_MAX_CANDIDATES):
        candidate = walker.get_next(datetime)
        if best_naive is not None and candidate > best_naive + _MARGIN:
            break
        for instant in _instants(candidate, tz, both_folds):
            if instant > after and (best is None or instant < best):
                best, best_naive = instant, candidate
    if best is None:
        raise UsageError(f"cron expression {expr!r} has no firing near {local.isoformat()}")
    return best


def _steady(tz: ZoneInfo, local: datetime) -> bool:
    """No change of offset within hours of `local` (aware, in `tz`): wall-clock order is instant order."""
    return (local - _MARGIN).utcoffset() == (local + _MARGIN).utcoffset() == local.utcoffset()


def _instants(wall: datetime, tz: ZoneInfo, both_folds: bool) -> list[float]:
    """The instants a wall-clock slot stands for: one, two (a repeated hour), or the jump (a skipped hour)."""
    first = wall.replace(tzinfo=tz, fold=0)
    second = wall.replace(tzinfo=tz, fold=1)
    t0, t1 = first.timestamp(), second.timestamp()
    if t0 == t1:
        return [t0]
    if t0 < t1:  # the wall time happens twice
        return [t0, t1] if both_folds else [t0]
    return [_jump(tz, t1, t0)]  # the wall time never happens: fire when the clock jumps past it


def _jump(tz: ZoneInfo, low: float, high: float) -> float:
    """The instant in (low, high] at which the zone's offset changes to its value at `high`."""
    target = datetime.fromtimestamp(high, tz).utcoffset()
    lo, hi = int(low), int(high)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if datetime.fromtimestamp(mid, tz).utcoffset() == target:
            hi = mid
        else:
            lo = mid
    return float(hi)
