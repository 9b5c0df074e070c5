"""`claw agent -m` and exec approvals, as real processes: the git alias attack against a bare "always"
entry, the whole denial on stderr, and the terminal prompt saying why it asks."""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.support.processes import REPO, run_claw
from tests.support.waiting import read_until

ATTACK = "git -c alias.x='!touch ../outside/PWNED; id' x"


def _always_git(home: Path) -> None:
    """The approvals file as an earlier "allow always" on `git status` left it."""
    git = os.path.realpath(shutil.which("git") or "/usr/bin/git")
    entry = {"pattern": git, "addedAt": "2025-01-01T00:00:00+00:00", "lastCommand": "git status"}
    (home / "exec-approvals.json").write_text(json.dumps({"version": 1, "agents": {"main": {"allowlist": [entry]}}}))


def _answer_on_a_terminal(
    env: dict[str, str], message: str, asked: Callable[[str], bool], answer: bytes, think: float = 0.0
) -> tuple[str, int, str]:
    """`claw agent -m message` with a terminal for stdin: once its stderr shows `asked`, the user waits `think`
    seconds and types `answer`. (What the prompt said, the exit code, the whole stderr.)"""
    leader, follower = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "claw", "agent", "-m", message],
            env={**env, "PYTHONPATH": str(REPO)},
            cwd=REPO,
            stdin=follower,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stderr is not None
        prompt = read_until(proc.stderr, asked, what="the approval prompt")  # type: ignore[arg-type]
        time.sleep(think)
        os.write(leader, answer)
        _out, err = proc.communicate(timeout=30)
    finally:
        os.close(leader)
        os.close(follower)
    return prompt, proc.returncode, err.decode()


def _spy_on_id(tmp_path: Path, env: dict[str, str]) -> tuple[dict[str, str], Path]:
    """A PATH whose first `id` records that it ran (then runs the real one)."""
    shims, marker = tmp_path / "shims", tmp_path / "id-ran"
    shims.mkdir()
    real_id = shutil.which("id") or "/usr/bin/id"
    (shims / "id").write_text(f'#!/bin/sh\necho ran > "{marker}"\nexec {real_id} "$@"\n')
    (shims / "id").chmod(0o755)
    return {**env, "PATH": f"{shims}{os.pathsep}{env.get('PATH', os.defpath)}"}, marker


def test_the_git_alias_attack_is_denied_end_to_end_and_the_denial_is_printed_whole(
    claw_env: ClawEnv, tmp_path: Path
) -> None:
    assert run_claw(claw_env.env, "init").returncode == 0
    outside = claw_env.home / "outside"
    outside.mkdir()
    _always_git(claw_env.home)
    env, id_ran = _spy_on_id(tmp_path, claw_env.env)
    claw_env.server.script(tool_call("exec", {"command": ATTACK}), text("I could not run it."))

    done = run_claw(env, "agent", "-m", "run my git alias")

    assert done.returncode == 0, done.stderr
    assert not (outside / "PWNED").exists() and list(outside.iterdir()) == []
    assert not id_ran.exists()
    result = claw_env.server.chat_requests[1].body["messages"][-1]
    assert result["role"] == "tool"
    denial = result["content"]
    assert denial.startswith("exec denied: approval required but no one is available to approve it")
    assert "git -c sets configuration" in denial and "only an approval of this exact command" in denial
    assert len(denial) > 160
    shown = [line for line in done.stderr.splitlines() if line.startswith("✗ exec")]
    assert len(shown) == 1 and re.fullmatch(r"✗ exec \(\d+ ms\): (.*)", shown[0]).group(1) == denial  # type: ignore[union-attr]
    assert done.stdout.strip() == "I could not run it."


def test_the_terminal_prompt_says_why_it_asks(claw_env: ClawEnv) -> None:
    assert run_claw(claw_env.env, "init").returncode == 0
    _always_git(claw_env.home)
    claw_env.server.script(tool_call("exec", {"command": ATTACK}), text("You said no."))
    prompt, code, err = _answer_on_a_terminal(
        claw_env.env, "run my git alias", lambda seen: "Allow? [o]nce" in seen, b"n\n"
    )
    assert f"exec wants to run:\n  {ATTACK}\n" in prompt
    why = re.search(r"^why: (.*)$", prompt, re.MULTILINE)
    assert why and "git -c sets configuration" in why.group(1) and "exact command" in why.group(1), prompt
    assert code == 0, err
    assert "exec denied by user" in err
    assert not (claw_env.home / "outside" / "PWNED").exists()


def test_the_approval_wait_is_shown_apart_from_the_calls_time(claw_env: ClawEnv) -> None:
    # A redirection: no allowlist entry can match it, so the prompt offers no "always".
    assert run_claw(claw_env.env, "init").returncode == 0
    claw_env.server.script(tool_call("exec", {"command": "echo hi > said.txt"}), text("Done."))
    prompt, _code, err = _answer_on_a_terminal(
        claw_env.env, "write it", lambda seen: "Allow?" in seen and seen.endswith(": "), b"o\n", think=1.5
    )  # the user thinks it over
    assert "Allow? [o]nce / [N]o: " in prompt and "[a]lways" not in prompt
    [line] = [line for line in err.splitlines() if line.startswith("✓ exec")]
    took = re.fullmatch(r"✓ exec \((\d+) ms, (\d+\.\d) s waiting for approval\)", line)
    assert took, line
    assert float(took.group(2)) >= 1.5 and int(took.group(1)) < 1500  # the wait is not the command's time
