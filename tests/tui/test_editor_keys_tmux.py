"""The workspace editor in a real terminal (tmux, TERM=xterm-256color, tmux's default settings):
Ctrl+End and Ctrl+Home go to the end and the start of the file, as tmux delivers those keys."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.tmux import REPO_ROOT, Tmux, needs_tmux

pytestmark = needs_tmux

SOUL = "You are Testy.\nLine two of the soul.\nLine three, the last.\n"


@pytest.fixture
def tmux(claw_env: ClawEnv) -> Iterator[Tmux]:
    session = Tmux({**claw_env.env, "PYTHONPATH": str(REPO_ROOT), "TERM": "xterm-256color"})
    yield session
    session.kill()


def _cursor(tmux: Tmux) -> tuple[int, int]:
    """Where the terminal's cursor is (column, row): Textual keeps it on the TextArea's cursor."""
    x, y = tmux("display-message", "-p", "-t", "chat", "#{cursor_x} #{cursor_y}").stdout.split()
    return int(x), int(y)


def _wait_until(condition, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def test_ctrl_home_and_ctrl_end_move_through_the_file(claw_env: ClawEnv, workspace: Path, tmux: Tmux) -> None:
    soul = workspace / "SOUL.md"
    soul.write_text(SOUL, encoding="utf-8")
    command = f"cd {REPO_ROOT} && {sys.executable} -m claw chat"
    started = tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "chat", "sh", "-c", command)
    assert started.returncode == 0, started.stderr
    tmux.wait_for("test-model")

    tmux("send-keys", "-t", "chat", "-l", "/edit soul")
    tmux("send-keys", "-t", "chat", "Enter")
    rows = tmux.wait_for("Line three, the last.").splitlines()
    first_row = next(n for n, line in enumerate(rows) if "You are Testy." in line)
    start = _wait_until(lambda: (c := _cursor(tmux))[1] == first_row and c, "the cursor on the first line")

    # Each key's effect is awaited before typing: Textual runs a binding after the printable keys
    # already queued behind it, so a key and text sent in one burst would land in the other order.
    tmux("send-keys", "-t", "chat", "C-End")
    _wait_until(lambda: _cursor(tmux) == (start[0], first_row + 3), "Ctrl+End: the cursor at the end of the file")
    tmux("send-keys", "-t", "chat", "-l", "TAIL")
    tmux.wait_for("TAIL")
    tmux("send-keys", "-t", "chat", "C-Home")
    _wait_until(lambda: _cursor(tmux) == start, "Ctrl+Home: the cursor at the start of the file")
    tmux("send-keys", "-t", "chat", "-l", "HEAD ")
    tmux.wait_for("HEAD You are Testy.")
    tmux("send-keys", "-t", "chat", "C-s")
    tmux.wait_for("saved")
    assert soul.read_text(encoding="utf-8") == "HEAD " + SOUL + "TAIL"
