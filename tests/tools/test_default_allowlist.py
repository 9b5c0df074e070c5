"""The default allowlist: read-only commands run unasked inside the workspace, and ask for anything more."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claw.config import ExecSettings
from claw.tools.base import ApprovalRequest, Decision, ToolContext
from claw.tools.exec_approvals import ApprovalBroker
from claw.tools.exec_policy import decide
from tests.tools.conftest import CallTool, MakeCtx

PATH = os.environ.get("PATH", os.defpath)


class NeverAsked:
    async def __call__(self, request: ApprovalRequest) -> Decision:
        raise AssertionError(f"asked about {request.command!r}")


@pytest.fixture
def files(workspace: Path, outside: Path) -> Path:
    (workspace / "notes.txt").write_text("beta\nalpha\nalpha\n")
    (workspace / "src").mkdir()
    (workspace / "src" / "a.py").write_text("# TODO: one\n")
    (workspace / "escape").symlink_to(outside)
    return workspace


async def test_ls_la_runs_without_a_prompt_with_default_settings(
    call: CallTool, ctx: ToolContext, broker: ApprovalBroker, files: Path
) -> None:
    broker.set_approver(NeverAsked())
    result = await call("exec", command="ls -la", context=ctx)
    assert not result.is_error, result.text
    assert "notes.txt" in result.text and result.text.endswith("exit code: 0")
    result = await call("exec", command="grep -rn TODO src | sort | head -n 5; wc -l notes.txt", context=ctx)
    assert result.text == "src/a.py:1:# TODO: one\n3 notes.txt\n\nexit code: 0"


UNASKED = [
    "ls -la",
    "ls src *.txt",
    "cat notes.txt",
    "head -n 2 notes.txt",
    "tail -n1 notes.txt",
    "wc -l notes.txt",
    "grep -rn TODO .",
    "grep '^/usr' notes.txt",
    "pwd",
    "echo hello $HOME",
    "date +%Y",
    "stat notes.txt",
    "file notes.txt",
    "du -sh src",
    "sort -u notes.txt",
    "uniq -c notes.txt",
    "cut -d/ -f1 notes.txt",
    "diff notes.txt notes.txt",
    "find . -name '*.py'",
    "sed -n '1,2p' notes.txt",
    "awk '{ print $1 }' notes.txt",
    "realpath src",
]


@pytest.mark.parametrize("command", UNASKED)
def test_read_only_commands_inside_the_workspace_are_allowed(files: Path, command: str) -> None:
    verdict = decide(command, ExecSettings(), [], cwd=files, path_env=PATH)
    assert verdict.action == "allow" and verdict.allowlisted, verdict


ASKED = [
    ("cat /etc/passwd", "/etc/passwd is outside the workspace"),
    ("ls ..", ".. is outside the workspace"),
    ("ls /", "/ is outside the workspace"),
    ("cat ~/.profile", "outside the workspace"),
    ("cat $HOME/.profile", "the shell expands"),
    ("cat escape/secret.txt", "escape/secret.txt is outside the workspace"),
    ("grep -f/etc/passwd notes.txt", "outside the workspace"),
    ("grep -R top .", "follows links"),
    ("du -L .", "follows links"),
    ("find -L . -name x", "follows links"),
    ("wc --files0-from=list", "reads a list of names"),
    ("ls .*", "also matches . and .."),
    ("sed 'r /etc/passwd' notes.txt", "sed's r/R command reads /etc/passwd"),
    ("awk '{ getline line < \"/etc/passwd\"; print line }' notes.txt", "awk's getline"),
    ("find / -name passwd", "/ is outside the workspace"),
    ("sort -o sorted.txt notes.txt", "sort -o writes"),
    ("echo hi > out.txt", "redirection"),
]


@pytest.mark.parametrize(("command", "why"), ASKED, ids=[c for c, _ in ASKED])
def test_anything_more_asks_and_says_why(
    files: Path, outside: Path, monkeypatch: pytest.MonkeyPatch, command: str, why: str
) -> None:
    # A HOME of the test's own, with the file `~/.profile` names: a path that does not exist passes the check
    # (nothing to read), so the real HOME's files must not decide the verdict.
    monkeypatch.setenv("HOME", str(outside))
    (outside / ".profile").write_text("export SECRET=1\n")
    verdict = decide(command, ExecSettings(), [], cwd=files, path_env=PATH)
    assert verdict.action == "ask" and not verdict.allowlisted, verdict
    assert why in verdict.reason, verdict.reason


def test_the_default_allowlist_can_be_turned_off(files: Path) -> None:
    verdict = decide("ls -la", ExecSettings(default_allowlist=False), [], cwd=files, path_env=PATH)
    assert verdict.action == "ask" and "is not in the allowlist" in verdict.reason


def test_a_program_in_the_workspace_under_a_default_name_is_not_a_default(files: Path) -> None:
    (files / "cat").write_text("#!/bin/sh\ntouch pwned\n")
    (files / "cat").chmod(0o755)
    assert decide("./cat notes.txt", ExecSettings(), [], cwd=files, path_env=PATH).action == "ask"
    on_path = decide("cat notes.txt", ExecSettings(), [], cwd=files, path_env=f"{files}{os.pathsep}{PATH}")
    assert on_path.action == "ask"


async def test_the_default_setting_is_on_in_config(make_ctx: MakeCtx) -> None:
    assert make_ctx().settings.tools.exec.default_allowlist is True
    assert make_ctx(exec={"defaultAllowlist": False}).settings.tools.exec.default_allowlist is False
