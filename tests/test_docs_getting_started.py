"""Every shell block of docs/getting-started.md runs as written, in order, against the scripted model server in a
fresh CLAW_HOME (the `claw_env` fixture), each command exiting 0.

One exception, said here rather than hidden: the install line (`python3 -m venv .venv && … pip install -e . &&
claw init`) is what made the environment this test runs in (CI runs the same line with `.[test]`, see
tests/test_quick_start.py), so its install part is checked to be that line and only what follows it is run.
`EDITOR=true` stands in for the editor `claw workspace edit` opens."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.fixtures import ClawEnv

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "getting-started.md"
INSTALLED = "python3 -m venv .venv && . .venv/bin/activate && pip install -e . && "


def _shell_blocks() -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", PAGE.read_text(encoding="utf-8"), flags=re.S | re.M)


def _as_run(block: str) -> str:
    """The block as the test runs it: the install prefix (the environment this runs in) taken off."""
    lines = block.splitlines()
    return "\n".join(line.removeprefix(INSTALLED) for line in lines) + "\n"


def test_the_page_starts_with_the_install_line() -> None:
    first = _shell_blocks()[0].strip()
    assert first.startswith(INSTALLED) and first.removeprefix(INSTALLED) == "claw init"


def test_every_shell_block_runs_as_written(claw_env: ClawEnv, tmp_path: Path) -> None:
    blocks = _shell_blocks()
    assert len(blocks) >= 4, "the page lost its shell blocks"
    env = {
        **claw_env.env,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{claw_env.env.get('PATH', '')}",
        "EDITOR": "true",
        "VISUAL": "true",
    }
    for block in blocks:
        done = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", _as_run(block)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=100,
        )
        assert done.returncode == 0, f"{block}\nexit {done.returncode}\n{done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr, done.stderr
    # `claw agent -m hello` reached the model, and `claw init` made the state it then used.
    assert any(
        message.get("content") == "hello" for request in claw_env.server.chat_requests for message in request.messages
    )
    assert (claw_env.home / "config.toml").is_file() and (claw_env.home / "workspace" / "SOUL.md").is_file()
