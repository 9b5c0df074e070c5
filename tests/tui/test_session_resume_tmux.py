"""`claw chat --resume` and `claw chat -c` in a real terminal (tmux): the picker comes first and the
console opens on the session picked; --continue opens the most recent conversation straight away."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import run_claw
from tests.support.tmux import REPO_ROOT, Tmux, needs_tmux

pytestmark = needs_tmux


@pytest.fixture
def tmux(claw_env: ClawEnv) -> Iterator[Tmux]:
    session = Tmux({**claw_env.env, "PYTHONPATH": str(REPO_ROOT), "TERM": "xterm-256color"})
    yield session
    session.kill()


def _start(tmux: Tmux, *args: str) -> None:
    command = f"cd {REPO_ROOT} && {sys.executable} -m claw chat {' '.join(args)}"
    started = tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "chat", "sh", "-c", command)
    assert started.returncode == 0, started.stderr


def test_resume_picks_then_opens_and_continue_opens_the_latest(claw_env: ClawEnv, tmux: Tmux) -> None:
    claw_env.server.script(text("Volcanoes erupt."), text("Glaciers move."))
    for key, message in (("geo", "tell me about volcanoes"), ("ice", "and glaciers")):
        assert run_claw(claw_env.env, "agent", "-s", key, "-m", message).returncode == 0
    _start(tmux, "--resume")
    tmux.wait_for("Resume a session")
    tmux("send-keys", "-t", "chat", "volcan")
    tmux.wait_for("tell me about volcanoes")  # the preview of the one session left
    tmux("send-keys", "-t", "chat", "Enter")
    shown = tmux.wait_for("test-model")  # the console's status bar: the picker is gone
    assert "Volcanoes erupt." in shown and "Resume a session" not in shown and "Glaciers" not in shown
    tmux("send-keys", "-t", "chat", "C-d")
    tmux.kill()

    again = Tmux(tmux.env)
    try:
        command = f"cd {REPO_ROOT} && {sys.executable} -m claw chat -c; sleep 30"
        again("new-session", "-d", "-x", "120", "-y", "40", "-s", "chat", "sh", "-c", command)
        shown = again.wait_for("Glaciers move.")
        assert "and glaciers" in shown and "volcanoes" not in shown
        again("send-keys", "-t", "chat", "C-d")
        again.wait_for("continuing agent:main:ice")  # said on stderr, left on the terminal once the console ends
    finally:
        again.kill()
