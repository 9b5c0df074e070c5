"""Run the real `claw` CLI in a subprocess against a temporary CLAW_HOME."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import processes

REPO_ROOT = Path(__file__).resolve().parents[2]
# Variables from the developer's shell that would change what these commands do.
_SCRUBBED = ("CLAW_MODEL", "VISUAL", "EDITOR", "OPENAI_API_KEY", "OPENAI_BASE_URL")

RunClaw = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def claw_home(tmp_path: Path) -> Path:
    return tmp_path / "claw_home"


@pytest.fixture
def run_claw(claw_home: Path) -> RunClaw:
    """`run_claw("config", "get", "gateway.port", env={...}, expect=0)` runs `python -m claw …`."""

    def run(*args: str, env: dict[str, str] | None = None, expect: int | None = 0) -> subprocess.CompletedProcess[str]:
        full_env = {k: v for k, v in os.environ.items() if k not in _SCRUBBED}
        full_env.update({"CLAW_HOME": str(claw_home), **(env or {})})
        done = processes.run_claw(full_env, *args)
        if expect is not None:
            assert done.returncode == expect, (
                f"claw {' '.join(args)} -> {done.returncode}\n{done.stdout}\n{done.stderr}"
            )
        return done

    return run


def assert_one_line_error(done: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """A user error: exit 2, exactly one line on stderr starting `claw:`, no traceback, naming `fragments`."""
    assert done.returncode == 2, done
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("claw: ")
    assert "Traceback" not in done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
