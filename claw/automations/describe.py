"""A schedule in words, for listings: "At 09:00 every day", "Every 30m", "Once at 2026-12-24 18:00 CET"."""

from __future__ import annotations

from claw.automations.durations import format_duration
from claw.automations.schedule import Schedule
from claw.automations.timezones import local_text


def describe(schedule: Schedule) -> str:
    if schedule.kind == "event":
        kind, _, name = schedule.expr.partition(":")
        return f"On each signed POST to webhook {name}" if kind == "webhook" else f"On new mail for {name}"
    if schedule.kind == "every":
        return f"Every {format_duration(float(schedule.expr))}"
    if schedule.kind == "at":
        return f"Once at {local_text(float(schedule.expr), schedule.tz)}"
    return describe_cron(schedule.expr)


def describe_cron(expr: str) -> str:
    """cron-descriptor's sentence in 24-hour time, with "every day" where it leaves the days implicit."""
    from cron_descriptor import ExpressionDescriptor, Options

    options = Options()
    options.use_24hour_time_format = True
    options.verbose = False
    try:
        text = ExpressionDescriptor(expr, options).get_description()
    except Exception:  # the describer is a nicety; the expression itself was checked on the way in
        return expr
    _minute, hour, dom, month, dow = expr.split(" ")
    if dom == month == dow == "*" and not any(c in hour for c in "*-/"):
        text += " every day"
    return text


def schedule_text(schedule: Schedule) -> str:
    """The schedule as typed: the cron expression, `every 30m`, `at <time>`, or `on webhook:NAME`."""
    if schedule.kind == "event":
        return f"on {schedule.expr}"
    if schedule.kind == "every":
        return f"every {format_duration(float(schedule.expr))}"
    if schedule.kind == "at":
        return f"at {local_text(float(schedule.expr), schedule.tz)}"
    return schedule.expr
