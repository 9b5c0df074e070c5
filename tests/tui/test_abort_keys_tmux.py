"""Esc and Ctrl+C in a real terminal (tmux): both abort the running turn, Esc closing the `/` popup in the
same press; the footer names what the key does at that moment."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.model_server import hang
from tests.support.tmux import REPO_ROOT, Tmux, needs_tmux

pytestmark = needs_tmux


@pytest.fixture
def tmux(claw_env: ClawEnv) -> Iterator[Tmux]:
    session = Tmux({**claw_env.env, "PYTHONPATH": str(REPO_ROOT), "TERM": "xterm-256color"})
    yield session
    session.kill()


def _footer(tmux: Tmux) -> str:
    return tmux.screen().rstrip().splitlines()[-1]


def _until_footer_lacks(tmux: Tmux, word: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while word in _footer(tmux):
        assert time.monotonic() < deadline, tmux.screen()
        time.sleep(0.2)


def test_escape_and_ctrl_c_abort_the_running_turn(claw_env: ClawEnv, tmux: Tmux) -> None:
    claw_env.server.script(hang("First partial answer"), hang("Second partial answer"))
    command = f"cd {REPO_ROOT} && {sys.executable} -m claw chat"
    assert tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "chat", "sh", "-c", command).returncode == 0
    tmux.wait_for("test-model")
    _until_footer_lacks(tmux, "Abort")  # idle: nothing to abort (the first frame's footer may come before that)

    tmux("send-keys", "-t", "chat", "-l", "one")
    tmux("send-keys", "-t", "chat", "Enter")
    tmux.wait_for("First partial answer")
    assert "esc Abort" in _footer(tmux)
    tmux("send-keys", "-t", "chat", "-l", "/exp")
    tmux.wait_for("write this session to a file")  # the popup
    tmux("send-keys", "-t", "chat", "Escape")
    shown = tmux.wait_for("aborted")
    assert "write this session to a file" not in shown  # the popup closed in the same press
    tmux("send-keys", "-t", "chat", "C-u")

    tmux("send-keys", "-t", "chat", "-l", "two")
    tmux("send-keys", "-t", "chat", "Enter")
    tmux.wait_for("Second partial answer")
    tmux("send-keys", "-t", "chat", "C-c")
    deadline = time.monotonic() + 30
    while tmux.screen().count("aborted") < 2:  # the second reply is marked too
        assert time.monotonic() < deadline, tmux.screen()
        time.sleep(0.2)
    assert tmux.alive()
    _until_footer_lacks(tmux, "Abort")
