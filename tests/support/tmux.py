"""A tmux server of a test's own, driving the real `claw chat` in a real terminal."""

from __future__ import annotations

import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from tests.support.unavailable import unavailable, under_ci

REPO_ROOT = Path(__file__).resolve().parents[2]

_MISSING = "tmux is not installed (.ci/run installs it)"
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None and not under_ci(), reason=_MISSING)
"""Skips where tmux is missing; under CI the test runs, and `Tmux()` fails it saying why."""


class Tmux:
    """One tmux server of our own (its own socket), so nothing else running on the machine is touched."""

    def __init__(self, env: dict[str, str]) -> None:
        if shutil.which("tmux") is None:
            unavailable(_MISSING)
        self.socket = f"claw-test-{uuid.uuid4().hex[:8]}"
        self.env = env

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["tmux", "-L", self.socket, *args], env=self.env, capture_output=True, text=True, timeout=20
        )

    def screen(self) -> str:
        return self("capture-pane", "-p", "-t", "chat").stdout

    def wait_for(self, needle: str, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if needle in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{needle!r} not on screen after {timeout}s:\n{self.screen()}")

    def alive(self) -> bool:
        return self("has-session", "-t", "chat").returncode == 0

    def kill(self) -> None:
        self("kill-server")
