"""How `claw automations` shows jobs and runs in a terminal (the `--json` forms are the wire forms)."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table


def _local(iso: str | None) -> str:
    """An ISO time shown in this host's local zone."""
    if not iso:
        return "-"
    return datetime.fromisoformat(iso).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _next(job: dict[str, Any]) -> str:
    from claw.automations.timezones import local_text

    if not job["enabled"] or job["nextRunAtMs"] is None:
        return "-"
    return local_text(job["nextRunAtMs"] / 1000, job["tz"])


def schedule_cell(job: dict[str, Any]) -> str:
    """`0 9 * * * (At 09:00 every day)` for cron; the words alone for intervals and one-shots."""
    if job["schedule"]["kind"] == "cron":
        return f"{job['scheduleText']} ({job['description']})"
    return job["description"]


def job_line(job: dict[str, Any]) -> str:
    state = f"next run {_next(job)}" if job["enabled"] else "disabled"
    return f"automation {job['id']} ({job['name']}): {schedule_cell(job)} [{job['tz']}]; {state}"


def _console() -> Console:
    # Piped output is for reading later or for grep: do not squeeze it into 80 columns.
    return Console(highlight=False, width=None if sys.stdout.isatty() else 220)


def jobs_table(jobs: list[dict[str, Any]]) -> None:
    table = Table(box=None, header_style="bold")
    table.add_column("ID", no_wrap=True)
    table.add_column("NAME", overflow="fold", min_width=8)
    table.add_column("SCHEDULE", overflow="fold", min_width=16)
    for column in ("TZ", "NEXT RUN", "LAST", "ON"):
        table.add_column(column, no_wrap=True)
    for job in jobs:
        last = job["lastStatus"] or "-"
        if job["running"]:
            last = "running"
        elif job["consecutiveErrors"] and job["lastStatus"] == "error":
            last = f"error ×{job['consecutiveErrors']}"
        table.add_row(
            job["id"],
            escape(job["name"]),
            escape(schedule_cell(job)),
            job["tz"],
            _next(job),
            last,
            "yes" if job["enabled"] else "no",
        )
    _console().print(table)


def upcoming_lines(job: dict[str, Any]) -> None:
    print(job_line(job))
    if not job["enabled"]:
        print("  disabled: it would fire at these times if enabled now")
    upcoming = job.get("upcoming") or []
    if not upcoming:
        print("  (no further firings)")
        return
    width = max(len(item["local"]) for item in upcoming)
    print(f"  {'LOCAL (' + job['tz'] + ')':<{width}}   UTC")
    for item in upcoming:
        print(f"  {item['local']:<{width}}   {item['utc']}")


def run_result(run: dict[str, Any]) -> None:
    status = run["status"]
    head = f"{status}: run {run['runId'] or '-'} (ledger {run['id']})"
    if status == "running":
        print(f"started: run {run['runId']} (ledger {run['id']}); see `claw automations runs {run['jobId']}`")
        return
    if run.get("error"):
        head += f": {run['error']}"
    if run.get("deliveryStatus"):
        head += f"; delivery {run['deliveryStatus']}"
        if run.get("deliveryError"):
            head += f" ({run['deliveryError']})"
    print(head, file=sys.stderr)
    if run.get("output"):
        print(run["output"])


def runs_table(rows: list[dict[str, Any]]) -> None:
    table = Table(box=None, header_style="bold")
    for column in ("RUN ID", "STARTED", "FINISHED", "STATUS", "TRIGGER", "ERROR / OUTPUT"):
        table.add_column(column, no_wrap=column != "ERROR / OUTPUT", overflow="fold")
    for row in rows:
        trigger = row["trigger"]
        if trigger == "catch-up" and row["missedSlots"] > 1:
            trigger += f" ({row['missedSlots']} slots missed)"
        detail = row["error"] or row["summary"] or ""
        if row.get("deliveryStatus"):
            detail = f"[{row['deliveryStatus']}] {detail}"
        table.add_row(
            row["runId"] or row["id"],
            _local(row["startedAt"]),
            _local(row["finishedAt"]),
            row["status"],
            trigger,
            escape(detail),
        )
    _console().print(table)
