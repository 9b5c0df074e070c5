"""`claw automations …` as a real process: every bad input refused in one line with exit 2 and nothing stored;
the listing, next firings, edits and the run history."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.processes import run_claw

REPO = Path(__file__).resolve().parents[2]

Claw = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def claw(tmp_path: Path) -> Claw:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAW_", "OPENAI_"))}
    env.update({"CLAW_HOME": str(home), "TZ": "Europe/Paris"})

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return run_claw(env, "automations", *args)

    return run


def jobs(claw: Claw) -> list[dict[str, object]]:
    done = claw("ls", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["* * *", "-m", "x"], "expected 5 fields"),
        (["61 * * * *", "-m", "x"], "minute 61 is out of range 0-59"),
        (["*/0 * * * *", "-m", "x"], "step '0' in the minute field"),
        (["0 0 30 2 *", "-m", "x"], "schedule never fires"),
        (["", "-m", "x"], "it is empty"),
        (["0 9 * * *", "-m", "x", "--tz", "Mars/Olympus"], "unknown time zone 'Mars/Olympus'"),
        (["--every", "30s", "-m", "x"], "under the minimum of 60 s"),
        (["--every", "0s", "-m", "x"], "must be more than 0"),
        (["--every", "-5m", "-m", "x"], "must be more than 0"),
        (["--every", "often", "-m", "x"], "use a number and a unit"),
        (["--at", "2020-01-01T09:00", "-m", "x"], "is in the past"),
        (["--at", "2030-03-31T02:30", "-m", "x"], "does not exist in Europe/Paris"),
        (["--at", "next tuesday", "-m", "x"], "invalid --at"),
        (["0 9 * * *", "-m", "x", "--agent", "nobody"], "unknown agent 'nobody'"),
        (["0 9 * * *", "-m", "x", "--agent", "Bad Id"], "invalid agent id"),
        (["0 9 * * *", "-m", "x", "--session", "shared"], "invalid --session 'shared'"),
        (["0 9 * * *", "-m", "x", "--deliver", "webhook:ftp://h/x"], "http:// or https:// URL"),
        (["0 9 * * *", "-m", "x", "--deliver", "telegram"], "invalid --deliver"),
        (["0 9 * * *", "-m", "   "], "the message is empty"),
        (["-m", "x"], "give exactly one schedule"),
        (["0 9 * * *", "--every", "1h", "-m", "x"], "give exactly one schedule"),
        (["0 9 * * *", "-m", "x", "--name", "-rf"], "invalid name"),
    ],
)
def test_bad_input_is_refused_in_one_line_with_exit_2_and_nothing_is_stored(
    claw: Claw, args: list[str], reason: str
) -> None:
    done = claw("add", *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("claw: ") and reason in lines[0], done.stderr
    assert "Traceback" not in done.stderr
    assert jobs(claw) == []


def test_a_duplicate_name_is_refused_and_the_first_job_is_kept(claw: Claw) -> None:
    assert claw("add", "0 9 * * *", "-m", "brief", "--name", "brief").returncode == 0
    done = claw("add", "0 10 * * *", "-m", "other", "--name", "brief")
    assert done.returncode == 2 and "already exists" in done.stderr
    assert [j["message"] for j in jobs(claw)] == ["brief"]


def test_ls_shows_words_zone_next_run_and_state(claw: Claw) -> None:
    added = claw("add", "0 9 * * *", "-m", "Give me my daily brief", "--name", "brief", "--tz", "America/New_York")
    assert added.returncode == 0, added.stderr
    assert "0 9 * * * (At 09:00 every day) [America/New_York]" in added.stdout
    assert claw("add", "--every", "30m", "-m", "inbox", "--disabled").returncode == 0
    table = claw("ls", "--wide").stdout  # every cell whole (80 columns would cut the schedule)
    brief = next(line for line in table.splitlines() if "brief" in line)
    assert "0 9 * * * (At 09:00 every day)" in brief and "America/New_York" in brief
    assert " 09:00  " in brief  # the next run in the job's own zone (the TZ column names it)
    inbox = next(line for line in table.splitlines() if "inbox" in line)
    assert "Every 30m" in inbox and "Europe/Paris" in inbox and inbox.rstrip().endswith("no")
    (first, second) = jobs(claw)
    assert (
        first["tz"] == "America/New_York"
        and first["enabled"] is True
        and first["nextRunAt"].endswith(("-05:00", "-04:00"))
    )
    assert second["tz"] == "Europe/Paris" and second["enabled"] is False and second["nextRunAt"] is None


def test_next_lists_local_and_utc_times(claw: Claw) -> None:
    claw("add", "30 2 * * *", "-m", "night job", "--name", "night", "--tz", "America/New_York")
    done = claw("next", "night", "-n", "4", "--json")
    upcoming = json.loads(done.stdout)["upcoming"]
    assert len(upcoming) == 4
    for item in upcoming:
        assert item["local"].endswith(("EST", "EDT")) and item["utc"].endswith("UTC")
        assert item["local"][11:16] in ("02:30", "03:00")  # 03:00 only on the spring-forward night
    text = claw("next", "night", "-n", "2").stdout
    assert "LOCAL (America/New_York)" in text and "UTC" in text


def test_edit_enable_disable_rm(claw: Claw) -> None:
    job = json.loads(claw("add", "0 9 * * *", "-m", "brief", "--name", "brief", "--json").stdout)
    edited = json.loads(claw("edit", "brief", "--cron", "30 7 * * 1-5", "--tz", "Asia/Tokyo", "--json").stdout)
    assert edited["schedule"]["expr"] == "30 7 * * 1-5" and edited["tz"] == "Asia/Tokyo"
    assert "07:30:00+09:00" in edited["nextRunAt"]
    bad = claw("edit", "brief", "--every", "1s")
    assert bad.returncode == 2 and "under the minimum" in bad.stderr
    assert jobs(claw)[0]["schedule"]["expr"] == "30 7 * * 1-5"  # the refused edit changed nothing
    assert claw("edit", "brief").returncode == 2
    assert "Disabled" in claw("disable", job["id"]).stdout and jobs(claw)[0]["nextRunAt"] is None
    assert "Enabled" in claw("enable", "brief").stdout and jobs(claw)[0]["nextRunAt"] is not None
    assert "Removed automation" in claw("rm", "brief").stdout
    assert jobs(claw) == []
    missing = claw("rm", "brief")
    assert missing.returncode == 1 and "no job named 'brief' (jobs: none yet" in missing.stderr


def test_runs_of_a_job_that_never_ran(claw: Claw) -> None:
    claw("add", "0 9 * * *", "-m", "brief", "--name", "brief")
    assert "No runs of brief yet" in claw("runs", "brief").stdout
    assert json.loads(claw("runs", "brief", "--json").stdout) == []
