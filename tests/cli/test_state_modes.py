"""Every file claw writes under its state dir is 0600 whatever the umask, logs included: the console's
tui.log (a real `claw chat` on a pseudo-terminal), the gateway's log, and an older log left 0644."""

from __future__ import annotations

import logging
import os
import pty
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from claw.doctor.state import loose_files
from claw.paths import Paths
from claw.server.log_setup import setup_logging
from claw.tui.logging_setup import log_to_file
from tests.support.fixtures import ClawEnv
from tests.support.processes import REPO, run_claw, wait_until


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def loose_umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture
def root_logger() -> Iterator[logging.Logger]:
    """The root logger, its handlers and level put back afterwards (the setups replace them)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        yield root
    finally:
        for handler in list(root.handlers):
            if handler not in handlers:
                root.removeHandler(handler)
                handler.close()
        for handler in handlers:
            if handler not in root.handlers:
                root.addHandler(handler)
        root.setLevel(level)


def test_claw_chat_writes_tui_log_0600(claw_env: ClawEnv) -> None:
    assert run_claw(claw_env.env, "init").returncode == 0
    log = claw_env.home / "logs" / "tui.log"
    env = {**claw_env.env, "PYTHONPATH": str(REPO), "TERM": "xterm-256color"}
    pid, fd = pty.fork()
    if pid == 0:  # the child: the real console on the pseudo-terminal, under the usual umask
        os.umask(0o022)
        os.chdir(REPO)
        os.execve(sys.executable, [sys.executable, "-m", "claw", "chat"], env)
    try:
        wait_until(log.exists, timeout=60, what="tui.log")
        assert mode(log) == 0o600
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)


def test_console_log_is_private_even_if_it_existed_open(tmp_path: Path, loose_umask: None, root_logger) -> None:
    fresh = log_to_file(tmp_path / "new" / "tui.log")
    logging.getLogger("claw.test").warning("calling http://user:console-pw@example.com/v1")
    assert mode(fresh) == 0o600
    assert "console-pw" not in fresh.read_text() and "http://***@example.com/v1" in fresh.read_text()

    old = tmp_path / "old" / "tui.log"
    old.parent.mkdir()
    old.write_text("from an older claw\n")
    old.chmod(0o644)
    log_to_file(old)
    assert mode(old) == 0o600 and old.read_text().startswith("from an older claw")


def test_gateway_log_is_private_even_if_it_existed_open(tmp_path: Path, loose_umask: None, root_logger) -> None:
    log = tmp_path / "logs" / "gateway.log"
    log.parent.mkdir()
    log.write_text("")
    log.chmod(0o644)
    setup_logging(log, ["the-gateway-token-value"])
    logging.getLogger("claw.test").warning("token the-gateway-token-value via https://u:gw-pw@host/")
    assert mode(log) == 0o600
    text = log.read_text()
    assert "the-gateway-token-value" not in text and "gw-pw" not in text and "https://***@host/" in text


def test_doctor_reports_and_fixes_an_open_log(claw_env: ClawEnv) -> None:
    assert run_claw(claw_env.env, "init").returncode == 0
    log = claw_env.home / "logs" / "tui.log"
    log.parent.mkdir(mode=0o700, exist_ok=True)
    log.write_text("x\n")
    log.chmod(0o644)
    assert [loose.path for loose in loose_files(Paths.from_env())] == [log]

    done = run_claw(claw_env.env, "doctor")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"1 file of the state open to other users: {log} (0644)" in done.stdout
    fixed = run_claw(claw_env.env, "doctor", "--fix")
    assert f"fixed: made {log} 0600 (was 0644)" in fixed.stdout
    assert mode(log) == 0o600


def test_a_run_leaves_no_state_file_open(claw_env: ClawEnv) -> None:
    """init, a turn, a memory index and a config edit under umask 022: all 0600 (workspace files are the user's)."""
    from tests.support.model_server import text

    claw_env.server.script(text("Hello."))
    env = claw_env.env
    for args in (("init",), ("agent", "-m", "hi"), ("memory", "index"), ("config", "set", "gateway.port", "9000")):
        done = subprocess.run(
            [sys.executable, "-m", "claw", *args],
            env={**env, "PYTHONPATH": str(REPO)},
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=lambda: os.umask(0o022),
        )
        assert done.returncode == 0, (args, done.stderr)
    assert loose_files(Paths.from_env()) == []
