"""When a job fires: a cron expression in a zone, a fixed interval, one instant, or an event (a trigger).

`Schedule` is what is stored; `parse_schedule` turns what a person typed into one,
refusing anything that cannot be honoured with a one-line reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from claw.automations.cron_expr import cron_next, normalize_cron
from claw.automations.durations import looks_like_duration, parse_duration
from claw.automations.timezones import local_text, zone
from claw.errors import UsageError

Kind = Literal["cron", "every", "at", "event"]


@dataclass(frozen=True, slots=True)
class Schedule:
    """`expr` is the cron expression, the interval in seconds, the one-shot instant (epoch seconds), or the
    trigger (`webhook:NAME`, `gmail:ADDRESS`: see `claw.automations.triggers`), which never comes due by time."""

    kind: Kind
    expr: str
    tz: str
    anchor: float = 0.0
    """For `every`: the instant the intervals are counted from."""

    @property
    def one_shot(self) -> bool:
        return self.kind == "at"

    def next_after(self, after: float) -> float | None:
        """The first firing strictly after epoch `after`; None when there is none (a past one-shot, an event)."""
        if self.kind == "event":
            return None
        if self.kind == "cron":
            return cron_next(self.expr, zone(self.tz), after)
        if self.kind == "every":
            interval = float(self.expr)
            if after < self.anchor:
                return self.anchor
            steps = int((after - self.anchor) // interval) + 1
            return self.anchor + steps * interval
        at = float(self.expr)
        return at if at > after else None

    def upcoming(self, after: float, count: int) -> list[float]:
        found: list[float] = []
        cursor = after
        while len(found) < count:
            nxt = self.next_after(cursor)
            if nxt is None:
                break
            found.append(nxt)
            cursor = nxt
        return found

    def missed_between(self, first: float, now: float, cap: int = 1000) -> int:
        """How many firings fall in [first, now] (first included), counting at most `cap`."""
        if self.kind == "event":
            return 0
        if self.kind == "every":  # arithmetic, however long the gateway was down
            return min(cap, int((now - first) // float(self.expr)) + 1) if now >= first else 0
        count = 0
        cursor: float | None = first
        while cursor is not None and cursor <= now and count < cap:
            count += 1
            cursor = self.next_after(cursor)
        return count


def parse_schedule(
    *,
    cron: str | None,
    every: str | None,
    at: str | None,
    tz: str,
    now: float,
    min_every_seconds: float,
    on: str | None = None,
) -> Schedule:
    """Exactly one of `cron`, `every`, `at`, `on`, checked against `now`; `tz` must already be a valid zone name."""
    named = (("a cron expression", cron), ("--every", every), ("--at", at), ("--on", on))
    given = [name for name, value in named if value is not None]
    if len(given) != 1:
        detail = "none was given" if not given else f"got {' and '.join(given)}"
        raise UsageError(
            f"give exactly one schedule: a cron expression, --every DURATION, --at TIME or --on EVENT ({detail})"
        )
    zone(tz)
    if on is not None:
        from claw.automations.triggers import parse_trigger

        return Schedule("event", parse_trigger(on), tz)
    if cron is not None:
        return Schedule("cron", normalize_cron(cron), tz)
    if every is not None:
        seconds = parse_duration(every, what="interval")
        if seconds < min_every_seconds:
            raise UsageError(
                f"interval {every!r} is under the minimum of {min_every_seconds:g} s "
                "(automations.minEverySeconds in config.toml)"
            )
        return Schedule("every", f"{seconds:g}", tz, anchor=now)
    assert at is not None
    instant = parse_at(at, tz, now)
    return Schedule("at", f"{instant:.3f}", tz)


def parse_at(text: str, tz: str, now: float) -> float:
    """`20m` (from now) or an ISO date-time; without an offset it is wall time in `tz`."""
    raw = text.strip()
    if looks_like_duration(raw):
        return now + parse_duration(raw, what="--at delay")
    try:
        when = datetime.fromisoformat(raw.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"invalid --at {text!r}: use a date-time such as 2026-12-24T18:00 (in the job's zone) "
            "or a delay such as 20m"
        ) from None
    if when.tzinfo is None:
        local = when.replace(tzinfo=zone(tz))
        if local.astimezone(UTC).astimezone(zone(tz)).replace(tzinfo=None) != when:
            raise UsageError(f"invalid --at {text!r}: that wall time does not exist in {tz} (the clocks skip it)")
        when = local
    instant = when.timestamp()
    if instant <= now:
        raise UsageError(f"invalid --at {text!r}: {local_text(instant, tz)} is in the past")
    return instant
