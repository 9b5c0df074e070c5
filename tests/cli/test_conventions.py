"""What users of terminal tools expect, tried on the real `claw`: `--version`; bare `claw` opens the console
in a terminal and prints the help otherwise; the message of `claw agent` from stdin (`-m -`, or a pipe);
`list` wherever `ls` works."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import claw
from tests.cli.conftest import assert_one_line_error
from tests.support.cli_help import help_pages, listed_commands
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import REPO, run_claw, wait_until
from tests.support.tmux import Tmux, needs_tmux

Done = subprocess.CompletedProcess[str]


def claw_with_stdin(env: dict[str, str], *args: str, stdin: str | int) -> Done:
    """`python -m claw ARGS` with `stdin` as its standard input: text (a pipe) or a file descriptor."""
    if isinstance(stdin, str):
        return run_claw(env, *args, input=stdin)
    return subprocess.run(
        [sys.executable, "-m", "claw", *args],
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=stdin,
    )


def imported_modules(done: Done) -> set[str]:
    """The modules a `python -X importtime` run imported."""
    return {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}


def test_version_prints_the_version_without_loading_any_command(claw_env: ClawEnv) -> None:
    done = run_claw(claw_env.env, "--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"claw {claw.__version__}\n", "")
    timed = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "claw", "--version"],
        env={**claw_env.env, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    loaded = imported_modules(timed)
    assert "claw.cli.app" in loaded
    assert not {"textual", "openai", "claw.cli.sessions", "claw.cli.chat", "claw.cli.common"} & loaded
    assert "--version" in run_claw(claw_env.env, "--help").stdout


def test_bare_claw_without_a_terminal_prints_the_help_and_exits_2(claw_env: ClawEnv) -> None:
    done = run_claw(claw_env.env)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("Usage: ") and "\nCommands:\n" in done.stderr
    assert "chat " in done.stderr and "sessions " in done.stderr


@pytest.fixture
def tmux(claw_env: ClawEnv) -> Iterator[Tmux]:
    session = Tmux({**claw_env.env, "PYTHONPATH": str(REPO), "TERM": "xterm-256color"})
    yield session
    session.kill()


@needs_tmux
def test_bare_claw_in_a_terminal_opens_the_console(tmux: Tmux) -> None:
    command = f"cd {REPO} && {sys.executable} -m claw"
    started = tmux("new-session", "-d", "-x", "120", "-y", "30", "-s", "chat", "sh", "-c", command)
    assert started.returncode == 0, started.stderr
    shown = tmux.wait_for("test-model")  # the console's status line names the model
    assert "Usage:" not in shown
    assert tmux.alive()


@needs_tmux
def test_bare_claw_in_a_terminal_with_its_output_redirected_prints_the_help(tmux: Tmux, tmp_path: Path) -> None:
    out, code = tmp_path / "out.txt", tmp_path / "rc.txt"
    command = f"cd {REPO} && {sys.executable} -m claw > {out} 2>&1; echo $? > {code}.part && mv {code}.part {code}"
    started = tmux("new-session", "-d", "-x", "120", "-y", "30", "-s", "chat", "sh", "-c", command + "; sleep 30")
    assert started.returncode == 0, started.stderr
    wait_until(code.exists, what="bare claw to exit")
    assert code.read_text().strip() == "2"
    assert out.read_text().startswith("Usage: ") and "\nCommands:\n" in out.read_text()


def test_a_piped_message_is_sent_without_its_line_end(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("Hello back."))
    done = claw_with_stdin(claw_env.env, "agent", stdin="hi\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Hello back."
    assert claw_env.server.last_request().messages[-1]["content"] == "hi"


def test_dash_reads_the_whole_message_from_stdin(claw_env: ClawEnv) -> None:
    note = "Summarise this:\n\n- first point\n- second point\n"
    claw_env.server.script(text("Two points."))
    done = claw_with_stdin(claw_env.env, "agent", "-m", "-", "--json", stdin=note)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["data"]["text"] == "Two points."
    assert claw_env.server.last_request().messages[-1]["content"] == note.rstrip("\n")


def test_an_explicit_message_wins_over_stdin(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("ok"))
    done = claw_with_stdin(claw_env.env, "agent", "-m", "from the flag", stdin="from the pipe")
    assert done.returncode == 0, done.stderr
    assert claw_env.server.last_request().messages[-1]["content"] == "from the flag"


def test_no_message_on_a_terminal_is_a_usage_error(claw_env: ClawEnv) -> None:
    controller, terminal = pty.openpty()
    try:
        done = claw_with_stdin(claw_env.env, "agent", stdin=terminal)
    finally:
        os.close(terminal)
        os.close(controller)
    assert_one_line_error(done, "no message", "-m TEXT", "echo hi | claw agent")
    assert claw_env.server.requests == []


@pytest.mark.parametrize(
    ("args", "stdin", "says"),
    [
        (("-m", ""), "", "the message is empty"),
        (("-m", "  \n"), "", "the message is empty"),
        ((), "", "the message read from stdin is empty"),
        ((), "\n\n", "the message read from stdin is empty"),
        (("-m", "-"), " \n", "the message read from stdin is empty"),
    ],
)
def test_an_empty_message_is_a_usage_error(claw_env: ClawEnv, args: tuple[str, ...], stdin: str, says: str) -> None:
    done = claw_with_stdin(claw_env.env, "agent", *args, stdin=stdin)
    assert_one_line_error(done, says)
    assert claw_env.server.requests == []


def test_every_ls_answers_to_list_too() -> None:
    pages = help_pages(())
    by_path = {page.path: page for page in pages}
    listings = [page.path[:-1] for page in pages if page.path[-1:] == ("ls",)]
    assert len(listings) >= 8  # sessions, skills, automations, agents, hooks, channels, pairing, outbox
    for group in listings:
        alias = by_path.get((*group, "list"))
        assert alias is not None, f"claw {' '.join(group)} list is missing"
        assert alias.hidden and "list" not in listed_commands(by_path[group].text)  # one name in the help
        assert alias.text.replace(f"claw {' '.join(group)} list", "") == by_path[(*group, "ls")].text.replace(
            f"claw {' '.join(group)} ls", ""
        )


def test_list_prints_what_ls_prints(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("noted"))
    assert run_claw(claw_env.env, "agent", "-m", "remember this").returncode == 0
    table = run_claw(claw_env.env, "sessions", "list")
    assert table.returncode == 0, table.stderr
    assert "agent:main:main" in table.stdout and table.stdout == run_claw(claw_env.env, "sessions", "ls").stdout
    for group in ("skills", "hooks"):  # the rest are probed through their help above
        listed = run_claw(claw_env.env, group, "list", "--json")
        assert listed.returncode == 0, listed.stderr
        assert json.loads(listed.stdout) == json.loads(run_claw(claw_env.env, group, "ls", "--json").stdout)
