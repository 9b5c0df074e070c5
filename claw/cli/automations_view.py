"""How `claw automations` shows jobs and runs in a terminal (the `--json` forms are the wire forms)."""

from __future__ import annotations

import sys
from typing import Any

from claw.cli.table import Column, local_time, print_table


def _next(job: dict[str, Any], *, short: bool = False) -> str:
    """The next run in the job's zone; `short` (a table's cell, next to the TZ column): without the zone's
    abbreviation, and this year's date without the year, so the schedule and zone keep their room."""
    from datetime import date

    from claw.automations.timezones import local_text

    if not job["enabled"] or job["nextRunAtMs"] is None:
        return "-"
    text = local_text(job["nextRunAtMs"] / 1000, job["tz"])
    if short:
        text = text[:16].removeprefix(f"{date.today().year}-")
    return text


def schedule_cell(job: dict[str, Any]) -> str:
    """`0 9 * * * (At 09:00 every day)` for cron; the words alone for intervals and one-shots; `on webhook:NAME`
    for an event trigger."""
    if job.get("trigger"):
        return f"on {job['trigger']}"
    if job["schedule"]["kind"] == "cron":
        return f"{job['scheduleText']} ({job['description']})"
    return job["description"]


def job_line(job: dict[str, Any]) -> str:
    state = f"next run {_next(job)}" if job["enabled"] else "disabled"
    if job.get("trigger"):
        state = "waiting for events" if job["enabled"] else "disabled"
    return f"automation {job['id']} ({job['name']}): {schedule_cell(job)} [{job['tz']}]; {state}"


_JOB_COLUMNS = (
    Column("ID"),
    Column("NAME", flex=True, floor=8),
    Column("SCHEDULE", flex=True, cut="note"),  # the expression whole, its description shrinking
    Column("TZ"),  # a zone stays whole
    Column("NEXT RUN"),
    Column("LAST"),
    Column("TO", flex=True, floor=12),  # telegram:<chatId> or a webhook's host: the start tells them apart
    Column("ON"),
)


def trigger_setup(job: dict[str, Any]) -> None:
    """What the sender of a new trigger's events needs: where to POST, and (once) the key to sign with."""
    if not job.get("path"):
        return
    print(f"  POST to the gateway at {job['path']}")
    if job.get("secret"):
        print(f"  signing secret (shown this once): {job['secret']}")
        print('  headers: X-Claw-Timestamp: <unix seconds>, X-Claw-Signature: sha256=<HMAC-SHA256 of "<ts>.<body>">')
    else:
        print("  as a Pub/Sub push subscription with authentication (see automations.gmailAudience)")


def jobs_table(jobs: list[dict[str, Any]], *, wide: bool = False) -> None:
    rows = []
    for job in jobs:
        last = job["lastStatus"] or "-"
        if job["running"]:
            last = "running"
        elif job["consecutiveErrors"] and job["lastStatus"] == "error":
            last = f"error ×{job['consecutiveErrors']}"
        cells = (job["id"], job["name"], schedule_cell(job), job["tz"], _next(job, short=True), last)
        rows.append((*cells, _delivers(job), _on(job)))
    print_table(_JOB_COLUMNS, rows, wide=wide)


def _delivers(job: dict[str, Any]) -> str:
    from claw.automations.delivery import shown

    return shown(job["deliver"])


def _on(job: dict[str, Any]) -> str:
    return "yes" if job["enabled"] else "no"


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


_RUN_COLUMNS = (
    Column("RUN ID"),  # the ledger's 12-character id, whole (the agent run's id is in --json)
    Column("STARTED"),
    Column("FINISHED"),
    Column("STATUS"),
    Column("TOKENS", right=True),
    Column("COST", right=True),
    Column("TRIGGER", flex=True, floor=8),
    Column("RESULT", flex=True, floor=12),  # the error, or the output
)


def runs_table(rows: list[dict[str, Any]], *, wide: bool = False) -> None:
    from datetime import date

    from claw.cli.usage import cost_cell, tokens_cell

    this_year = date.today().year
    lines = []
    for row in rows:
        trigger = row["trigger"]
        if trigger == "catch-up" and row["missedSlots"] > 1:
            trigger += f" ({row['missedSlots']} slots missed)"
        detail = row["error"] or row["summary"] or ""
        if row.get("deliveryStatus"):
            detail = f"[{row['deliveryStatus']}] {detail}"
        started, finished = local_time(row["startedAt"]), local_time(row["finishedAt"])
        if finished[:10] == started[:10] and len(finished) > 10:  # the same day: its time alone keeps 80 columns
            finished = finished[11:]
        if started[:5] == f"{this_year}-":  # so do this year's dates without the year (`12-01 22:10`)
            started = started[5:]
        spent = (tokens_cell(row), cost_cell(row))  # merged in from the usage ledger (claw/cli/usage.py)
        lines.append((row["id"], started, finished, row["status"], *spent, trigger, detail))
    print_table(_RUN_COLUMNS, lines, wide=wide)
