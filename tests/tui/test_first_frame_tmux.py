"""What is typed before `claw chat` draws its first frame, in a real terminal (tmux): kept, and sent once ready.

Typed while nothing is on screen, the keys wait in the terminal's queue with Enter already a newline; read as
Textual would read them, the line would stay in the prompt (Ctrl+J) or go to no widget at all."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.tmux import REPO_ROOT, Tmux, needs_tmux

pytestmark = needs_tmux


@pytest.fixture
def tmux(claw_env: ClawEnv) -> Iterator[Tmux]:
    session = Tmux({**claw_env.env, "PYTHONPATH": str(REPO_ROOT), "TERM": "xterm-256color"})
    yield session
    session.kill()


def test_a_message_typed_before_the_first_frame_is_sent(claw_env: ClawEnv, tmux: Tmux) -> None:
    claw_env.server.script(text("Hello, early bird."))
    command = f"cd {REPO_ROOT} && {sys.executable} -m claw chat"
    assert tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "chat", "sh", "-c", command).returncode == 0
    tmux("send-keys", "-t", "chat", "-l", "typed at once")  # before Python has even started
    tmux("send-keys", "-t", "chat", "Enter")
    tmux("send-keys", "-t", "chat", "-l", "half a line")
    shown = tmux.wait_for("Hello, early bird.")
    assert "typed at once" in shown and "│ half a line" in shown  # sent; the rest still in the prompt
    assert [r.messages[-1]["content"] for r in claw_env.server.chat_requests] == ["typed at once"]
