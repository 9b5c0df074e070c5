"""The real `claw chat` in a real terminal (tmux): send a message, see the reply, edit a prompt in
$EDITOR (Ctrl+G), quit with Ctrl+D, and find the conversation in the transcript on disk."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.session_index import read_index
from tests.support.tmux import REPO_ROOT, Tmux, needs_tmux

pytestmark = needs_tmux


@pytest.fixture
def tmux(claw_env: ClawEnv, tmp_path: Path):
    editor = tmp_path / "fake_editor.py"
    editor.write_text(
        "import sys\nfrom pathlib import Path\n"
        "p = Path(sys.argv[1])\np.write_text(p.read_text() + ' and a line from the editor')\n",
        encoding="utf-8",
    )
    env = {
        **claw_env.env,
        "PYTHONPATH": str(REPO_ROOT),
        "EDITOR": f"{sys.executable} {editor}",
        "TERM": "xterm-256color",
    }
    env.pop("VISUAL", None)
    session = Tmux(env)
    yield session
    session.kill()


def test_claw_chat_in_a_real_terminal(claw_env: ClawEnv, tmux: Tmux, tmp_path: Path) -> None:
    claw_env.server.script(text("Hello from the scripted model!"), text("Second reply, edited prompt seen."))
    exit_file = tmp_path / "exit-code"
    command = f"cd {REPO_ROOT} && {sys.executable} -m claw chat; echo $? > {exit_file}"
    started = tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "chat", "sh", "-c", command)
    assert started.returncode == 0, started.stderr

    tmux.wait_for("test-model")  # the status bar: the app is up and connected
    tmux("send-keys", "-t", "chat", "-l", "hello from tmux")
    tmux("send-keys", "-t", "chat", "Enter")
    shown = tmux.wait_for("Hello from the scripted model!")
    assert "hello from tmux" in shown

    tmux("send-keys", "-t", "chat", "-l", "draft")
    tmux("send-keys", "-t", "chat", "C-g")  # $EDITOR (our fake one appends a line), then back
    tmux.wait_for("draft and a line from the editor")
    tmux("send-keys", "-t", "chat", "Enter")
    tmux.wait_for("Second reply, edited prompt seen.")

    tmux("send-keys", "-t", "chat", "C-d")
    deadline = time.monotonic() + 20
    while not exit_file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert exit_file.read_text().strip() == "0"

    sessions = claw_env.home / "agents" / "main" / "sessions"
    index = read_index(sessions)
    entry = index["agent:main:main"]
    lines = [json.loads(line) for line in (sessions / f"{entry['sessionId']}.jsonl").read_text().splitlines()]
    said = [(line["role"], line["content"]) for line in lines if line.get("role") in ("user", "assistant")]
    assert said == [
        ("user", "hello from tmux"),
        ("assistant", "Hello from the scripted model!"),
        ("user", "draft and a line from the editor"),
        ("assistant", "Second reply, edited prompt seen."),
    ]
    assert (claw_env.home / "logs" / "tui.log").exists()
