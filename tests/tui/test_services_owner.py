"""One owner of the background services per state dir: a console on an in-process gateway runs the
scheduler, channels and outbox only when no other claw process does, and says so when it cannot;
`claw gateway run` refuses to start beside a console that owns them (two pollers of one Telegram
bot conflict; two schedulers race for each due job)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.tmux import REPO_ROOT, Tmux, needs_tmux

pytestmark = needs_tmux


@pytest.fixture
def tmux(claw_env: ClawEnv) -> Iterator[Tmux]:
    session = Tmux({**claw_env.env, "PYTHONPATH": str(REPO_ROOT), "TERM": "xterm-256color"})
    yield session
    session.kill()


def test_a_second_console_and_a_gateway_leave_the_services_to_the_first_console(claw_env: ClawEnv, tmux: Tmux) -> None:
    command = f"cd {REPO_ROOT} && {sys.executable} -m claw chat"
    started = tmux("new-session", "-d", "-x", "200", "-y", "30", "-s", "chat", "sh", "-c", command)
    assert started.returncode == 0, started.stderr
    first = tmux.wait_for("test-model", timeout=90)  # a console's first frame takes 10-25 s on a loaded machine
    assert "no automations or channels here" not in first

    gateway = subprocess.run(
        [sys.executable, "-m", "claw", "gateway", "run", "--port", "0"],
        env=claw_env.env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert gateway.returncode == 2, gateway.stderr
    assert "Traceback" not in gateway.stderr
    error = gateway.stderr.strip().splitlines()[-1]
    assert "claw chat (pid " in error and "already runs the gateway's background services" in error
    assert not (claw_env.home / "gateway.json").exists()

    second = Tmux(tmux.env)  # a console of its own, in another terminal
    try:
        second("new-session", "-d", "-x", "200", "-y", "30", "-s", "chat", "sh", "-c", command)
        shown = second.wait_for("no automations or channels here", timeout=90)
        assert "claw chat (pid " in shown and "runs them" in shown
    finally:
        second.kill()
