"""Every listing fits the terminal, 80 columns when stdout is not one: one line a row, long cells cut with "…",
ids and dates whole; `--wide` shows the full values. Tried on the real `claw`, as a user sees it."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterator

import pytest
from rich.cells import cell_len

from tests.subagents.conftest import Roles
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.support.processes import REPO, run_claw
from tests.support.tmux import Tmux, needs_tmux

DATE = re.compile(r"\b\d{4}-\d\d-\d\d \d\d:\d\d\b")
LONG_REPLY = "\n".join(f"Line {n} of a reply that goes on and on, well past any terminal's width." for n in range(8))


def piped(env: dict[str, str]) -> dict[str, str]:
    """The environment of a command whose stdout is a pipe and whose width nobody set (COLUMNS unset)."""
    return {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}


def assert_fits(lines: list[str], width: int = 80) -> None:
    assert lines, "no table printed"
    too_wide = [line for line in lines if cell_len(line) > width]
    assert not too_wide, f"wider than {width} columns:\n" + "\n".join(too_wide)


def test_sessions_ls_is_one_line_a_session_within_80_columns(claw_env: ClawEnv) -> None:
    claw_env.server.script(text(LONG_REPLY))
    assert run_claw(claw_env.env, "agent", "-m", "tell me everything").returncode == 0
    env = piped(claw_env.env)
    [row] = json.loads(run_claw(env, "sessions", "ls", "--json").stdout)

    table = run_claw(env, "sessions", "ls")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert len(lines) == 2, table.stdout  # the header and the one session: the message no longer wraps
    assert_fits(lines)
    assert lines[0].split() == ["SESSION", "KEY", "ID", "MESSAGES", "UPDATED", "COST", "LAST", "MESSAGE"]
    assert lines[1].startswith("agent:main:main ") and row["sessionId"][:8] in lines[1]
    assert DATE.search(lines[1]) and lines[1].endswith("…")

    wide = run_claw(env, "sessions", "ls", "--wide").stdout.splitlines()
    assert len(wide) == 2 and wide[1].endswith(row["lastMessagePreview"]) and cell_len(wide[1]) > 80

    roomy = run_claw({**env, "COLUMNS": "100"}, "sessions", "ls").stdout.splitlines()
    assert_fits(roomy, 100)
    assert cell_len(roomy[1]) == 100  # the terminal's room is used, not just 80


def test_the_tree_keeps_every_date_whole_in_80_columns(claw_env: ClawEnv) -> None:
    claw_env.server.default = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Look it up.", "label": "finder"}), text(LONG_REPLY)],
        child=[text("Found it: " + LONG_REPLY)],
        announce=[text("Report: " + LONG_REPLY)],
    )
    assert run_claw(claw_env.env, "agent", "-m", "find it").returncode == 0
    table = run_claw(piped(claw_env.env), "sessions", "ls", "--tree")
    assert table.returncode == 0, table.stderr
    header, root, child = table.stdout.splitlines()
    assert_fits([header, root, child])
    assert header.split() == ["SESSION", "STATUS", "UPDATED", "LAST", "MESSAGE"]
    assert root.startswith("agent:main:main ") and child.startswith("└─ subagent:")
    for line in (root, child):
        assert DATE.search(line), line  # was cut to "202…" when the keys took the room
    assert " ok " in child


def test_the_other_listings_fit_80_columns_too(claw_env: ClawEnv) -> None:
    env = piped(claw_env.env)
    assert run_claw(env, "init").returncode == 0
    added = run_claw(
        env, "automations", "add", "0 9 * * 1-5", "-m", "brief", "--tz", "America/Los_Angeles",
        "--name", "weekday morning brief with the news and weather and agenda",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    for listing in (("skills", "ls", "--all"), ("hooks", "ls"), ("agents", "ls"), ("automations", "ls")):
        done = run_claw(env, *listing)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        table = lines if listing[0] != "hooks" else [line for line in lines if not line.startswith(("~", "!"))]
        assert_fits(table)
        assert all(line.split()[0].isupper() for line in table[:1]), listing  # the header row comes first
    jobs = run_claw(env, "automations", "ls").stdout.splitlines()
    [job] = json.loads(run_claw(env, "automations", "ls", "--json").stdout)
    assert jobs[1].startswith(job["id"] + "  ") and "…" in jobs[1] and jobs[1].endswith("yes")
    wide = run_claw(env, "automations", "ls", "--wide").stdout.splitlines()
    assert job["name"] in wide[1] and "America/Los_Angeles" in jobs[1]  # the zone whole, the name cut


def test_automations_ls_keeps_the_schedule_and_zone_whole(claw_env: ClawEnv) -> None:
    env = piped(claw_env.env)
    assert run_claw(env, "init").returncode == 0
    added = run_claw(
        env, "automations", "add", "0 9 * * 1-5", "-m", "brief", "--tz", "Europe/Paris", "--json",
        "--name", "the morning brief with the news and the weather and the agenda",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    header, row = run_claw(env, "automations", "ls").stdout.splitlines()
    assert_fits([header, row])
    assert row.startswith(json.loads(added.stdout)["id"] + "  ")
    assert "  0 9 * * 1-5 " in row and "  Europe/Paris  " in row and "the mornin…  0 9" in row  # the name gave way


@pytest.fixture
def tmux(claw_env: ClawEnv) -> Iterator[Tmux]:
    session = Tmux({**piped(claw_env.env), "PYTHONPATH": str(REPO), "TERM": "xterm-256color"})
    yield session
    session.kill()


@needs_tmux
def test_in_a_terminal_the_table_takes_the_terminal_width(claw_env: ClawEnv, tmux: Tmux) -> None:
    claw_env.server.script(text(LONG_REPLY))
    assert run_claw(claw_env.env, "agent", "-m", "tell me everything").returncode == 0
    command = f"cd {REPO} && {sys.executable} -m claw sessions ls; echo END; sleep 30"
    started = tmux("new-session", "-d", "-x", "104", "-y", "20", "-s", "chat", "sh", "-c", command)
    assert started.returncode == 0, started.stderr
    screen = tmux.wait_for("END").splitlines()
    [row] = [line for line in screen if line.startswith("agent:main:main")]
    assert row.endswith("…") and cell_len(row) == 104  # as wide as the terminal, and no wider
    assert screen[screen.index(row) + 1] == "END"  # the row did not wrap onto the next line
