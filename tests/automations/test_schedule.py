"""Schedules with fixed clocks: cron in several zones, both daylight-saving changes, intervals, one-shots."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from claw.automations.cron_expr import normalize_cron
from claw.automations.describe import describe, describe_cron
from claw.automations.schedule import Schedule, parse_at, parse_schedule
from claw.errors import UsageError


def at(text: str, tz: str) -> float:
    """Epoch seconds of wall time `text` in zone `tz` (first occurrence when it is ambiguous)."""
    return datetime.fromisoformat(text).replace(tzinfo=ZoneInfo(tz)).timestamp()


def firings(expr: str, tz: str, start: str, n: int) -> list[str]:
    """The next `n` firings after wall time `start`, as `MM-DD HH:MM ABBR` in the zone."""
    schedule = Schedule("cron", normalize_cron(expr), tz)
    zone = ZoneInfo(tz)
    return [datetime.fromtimestamp(t, zone).strftime("%m-%d %H:%M %Z") for t in schedule.upcoming(at(start, tz), n)]


@pytest.mark.parametrize(
    ("tz", "first_utc"),
    [
        ("UTC", "2026-06-15 09:00"),
        ("Europe/Paris", "2026-06-15 07:00"),  # CEST, UTC+2
        ("America/New_York", "2026-06-15 13:00"),  # EDT, UTC-4
        ("Asia/Kolkata", "2026-06-15 03:30"),  # IST, UTC+5:30, no daylight saving
        ("Asia/Tokyo", "2026-06-15 00:00"),
    ],
)
def test_nine_every_morning_is_nine_in_the_jobs_zone(tz: str, first_utc: str) -> None:
    schedule = Schedule("cron", "0 9 * * *", tz)
    nxt = schedule.next_after(at("2026-06-14 23:59", "UTC"))  # the same instant everywhere
    assert nxt is not None
    assert datetime.fromtimestamp(nxt, UTC).strftime("%Y-%m-%d %H:%M") == first_utc


def test_spring_forward_runs_a_skipped_slot_once_at_the_jump() -> None:
    # New York, 2026-03-08: 02:00 EST becomes 03:00 EDT; 02:30 does not exist that night.
    assert firings("30 2 * * *", "America/New_York", "2026-03-06 12:00", 4) == [
        "03-07 02:30 EST",
        "03-08 03:00 EDT",
        "03-09 02:30 EDT",
        "03-10 02:30 EDT",
    ]
    # Paris, 2026-03-29: 02:00 CET becomes 03:00 CEST.
    assert firings("15 2 * * *", "Europe/Paris", "2026-03-28 12:00", 3) == [
        "03-29 03:00 CEST",
        "03-30 02:15 CEST",
        "03-31 02:15 CEST",
    ]


def test_spring_forward_collapses_several_skipped_slots_into_one_firing() -> None:
    assert firings("*/30 * * * *", "America/New_York", "2026-03-08 01:00", 4) == [
        "03-08 01:30 EST",
        "03-08 03:00 EDT",  # 02:00 and 02:30 never happened: one firing at the jump, no double with 03:00
        "03-08 03:30 EDT",
        "03-08 04:00 EDT",
    ]


def test_fall_back_runs_a_fixed_time_once() -> None:
    # New York, 2026-11-01: 02:00 EDT becomes 01:00 EST; 01:30 happens twice.
    assert firings("30 1 * * *", "America/New_York", "2026-10-30 12:00", 4) == [
        "10-31 01:30 EDT",
        "11-01 01:30 EDT",
        "11-02 01:30 EST",
        "11-03 01:30 EST",
    ]
    # Paris, 2026-10-25: 03:00 CEST becomes 02:00 CET.
    assert firings("30 2 * * *", "Europe/Paris", "2026-10-24 12:00", 3) == [
        "10-25 02:30 CEST",
        "10-26 02:30 CET",
        "10-27 02:30 CET",
    ]


def test_fall_back_runs_an_hourly_job_in_both_repeated_hours() -> None:
    # Each pass through 01:00 is a different hour of real time: an hourly job fires in both.
    assert firings("0 * * * *", "America/New_York", "2026-11-01 00:00", 4) == [
        "11-01 01:00 EDT",
        "11-01 01:00 EST",
        "11-01 02:00 EST",
        "11-01 03:00 EST",
    ]


def test_half_hour_daylight_saving_of_lord_howe() -> None:
    # Lord Howe Island moves its clocks by 30 minutes (02:00 → 02:30 on 2026-10-04).
    got = firings("15 2 * * *", "Australia/Lord_Howe", "2026-10-03 12:00", 2)
    assert got[0].startswith("10-04 02:30") and got[1].startswith("10-05 02:15")


def test_firings_are_strictly_increasing_across_a_whole_year() -> None:
    schedule = Schedule("cron", "*/20 * * * *", "Europe/Paris")
    times = schedule.upcoming(at("2026-01-01 00:00", "Europe/Paris"), 3 * 24 * 365)
    assert all(b > a for a, b in zip(times, times[1:], strict=False))
    assert len(set(times)) == len(times)
    gaps = sorted({b - a for a, b in zip(times, times[1:], strict=False)})
    assert gaps == [1200]  # every 20 minutes of real time, DST nights included: nothing skipped, nothing doubled


def test_every_counts_from_its_anchor_whatever_the_zone() -> None:
    anchor = at("2026-03-08 00:10", "America/New_York")
    schedule = Schedule("every", "3600", "America/New_York", anchor=anchor)
    times = schedule.upcoming(anchor, 4)
    assert [t - anchor for t in times] == [3600, 7200, 10800, 14400]  # real hours across the DST jump
    assert schedule.missed_between(anchor + 3600, anchor + 3600 * 10.5) == 10


def test_at_fires_once_then_never() -> None:
    when = at("2026-12-24 18:00", "Europe/Paris")
    schedule = Schedule("at", f"{when:.3f}", "Europe/Paris")
    assert schedule.next_after(when - 60) == when
    assert schedule.next_after(when) is None


def test_parse_at_without_offset_is_wall_time_in_the_zone_and_relative_is_from_now() -> None:
    now = at("2026-06-01 12:00", "UTC")
    assert parse_at("2026-12-24T18:00", "Europe/Paris", now) == at("2026-12-24 18:00", "Europe/Paris")
    assert parse_at("2026-12-24T18:00+00:00", "Europe/Paris", now) == at("2026-12-24 18:00", "UTC")
    assert parse_at("20m", "UTC", now) == now + 1200
    assert parse_at("1h30m", "UTC", now) == now + 5400


def test_parse_at_refuses_a_wall_time_the_clocks_skip() -> None:
    with pytest.raises(UsageError, match="does not exist in America/New_York"):
        parse_at("2026-03-08T02:30", "America/New_York", at("2026-01-01 00:00", "UTC"))


def test_parse_schedule_normalises_macros_and_spacing() -> None:
    now = at("2026-06-01 12:00", "UTC")
    kwargs = {"every": None, "at": None, "tz": "UTC", "now": now, "min_every_seconds": 60}
    assert parse_schedule(cron="  0   9 * *  * ", **kwargs).expr == "0 9 * * *"
    assert parse_schedule(cron="@daily", **kwargs).expr == "0 0 * * *"


def test_describe_in_words() -> None:
    assert describe_cron("0 9 * * *") == "At 09:00 every day"
    assert describe_cron("*/15 9-17 * * 1-5") == "Every 15 minutes, between 09:00 and 17:59, Monday through Friday"
    assert describe(Schedule("every", "1800", "UTC")) == "Every 30m"
    assert describe(Schedule("at", f"{at('2026-12-24 18:00', 'Europe/Paris')}", "Europe/Paris")) == (
        "Once at 2026-12-24 18:00 CET"
    )
