"""Helpers for skill tests: write SKILL.md folders, run the real `claw` CLI."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.support.processes import run_claw


def write_skill(
    root: Path,
    name: str,
    description: str | None = None,
    *,
    metadata: Any = None,
    front: str = "",
    body: str = "Do the thing.\n",
    folder: str | None = None,
) -> Path:
    """Create `root/<folder or name>/SKILL.md`; `metadata` is written as one-line JSON unless it is a str."""
    directory = root / (folder or name)
    directory.mkdir(parents=True, exist_ok=True)
    lines = ["---", f"name: {name}", f"description: {description or f'The {name} skill.'}"]
    if metadata is not None:
        lines.append(f"metadata: {metadata if isinstance(metadata, str) else json.dumps(metadata)}")
    if front:
        lines.append(front.rstrip("\n"))
    lines += ["---", "", body]
    (directory / "SKILL.md").write_text("\n".join(lines), encoding="utf-8")
    return directory


def claw(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`python -m claw …` as a real subprocess, from the repository root."""
    return run_claw(env, *args, timeout=timeout)


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    """The current environment minus claw/openai variables, with CLAW_HOME set to `home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAW_", "OPENAI_"))}
    return {**env, "CLAW_HOME": str(home), **extra}


def assert_user_error(done: subprocess.CompletedProcess[str], *fragments: str, code: int = 2) -> str:
    """Exactly one `claw: …` line on stderr, no traceback, the given exit code; returns the line."""
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("claw: "), done.stderr
    assert "Traceback" not in done.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


# The in-process gateway fixtures (`workspace`, `make_client`, `client`) of the gateway tests.
from tests.gateway.conftest import client, make_client, workspace  # noqa: E402, F401
