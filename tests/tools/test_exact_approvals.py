"""Through the real exec tool and a real approvals file: bare entries from before, exact-command approvals,
and what a run with nobody to ask does with a dangerous form."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from claw.tools.allow_entry import AllowEntry
from claw.tools.base import ApprovalRequest, Decision, ToolContext
from claw.tools.exec_approvals import ApprovalBroker, ExecApprovalsStore
from tests.tools.conftest import CallTool
from tests.tools.helpers import snapshot

GIT = os.path.realpath(shutil.which("git") or "/usr/bin/git")


def _real(name: str) -> str:
    return os.path.realpath(shutil.which(name) or f"/usr/bin/{name}")


class Approver:
    def __init__(self, decision: Decision) -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.decision


def _old_file(path: Path, *patterns: str) -> None:
    """An exec-approvals.json as claw wrote it before approvals looked at arguments."""
    path.parent.mkdir(parents=True, exist_ok=True)
    entries = [{"pattern": p, "addedAt": "2025-01-01T00:00:00+00:00", "lastCommand": "x"} for p in patterns]
    path.write_text(json.dumps({"version": 1, "agents": {"main": {"allowlist": entries}}}))


def _read(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


@pytest.fixture
def repo(workspace: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    return workspace


FORMS = [
    (GIT, "git -c alias.x='!touch ../outside/PWNED; id' x"),
    (GIT, "git --exec-path=../outside status"),
    (_real("find"), "find . -exec touch ../outside/PWNED ;"),
    (_real("find"), "find . -name keep.txt -delete"),
    (_real("xargs"), "echo ../outside/PWNED | xargs touch"),
    (_real("env"), "env touch ../outside/PWNED"),
    (_real("awk"), "awk 'BEGIN { system(\"touch ../outside/PWNED\") }'"),
    (_real("awk"), 'awk \'BEGIN { print "x" > "../outside/PWNED" }\''),
    (_real("sed"), "sed -i s/keep/gone/ keep.txt"),
    (_real("sed"), "sed -n '1w ../outside/PWNED' keep.txt"),
    (_real("sed"), "sed '1e touch ../outside/PWNED' keep.txt"),
    (_real("sort"), "sort -o ../outside/PWNED keep.txt"),
    (_real("sort"), "sort --compress-program=sh keep.txt"),
    (_real("tar"), "tar --checkpoint=1 --checkpoint-action=exec='touch ../outside/PWNED' -cf a.tar keep.txt"),
    (_real("uniq"), "uniq keep.txt ../outside/PWNED"),
]


@pytest.mark.parametrize(("binary", "command"), FORMS, ids=[c for _, c in FORMS])
async def test_with_nobody_to_ask_a_dangerous_form_of_an_always_binary_is_denied_and_does_nothing(
    call: CallTool, ctx: ToolContext, repo: Path, outside: Path, approvals_file: Path, binary: str, command: str
) -> None:
    (repo / "keep.txt").write_text("keep\n")
    _old_file(approvals_file, binary, _real("echo"))
    before_ws, before_out = snapshot(repo), snapshot(outside)
    result = await call("exec", command=command, context=ctx)
    assert result.is_error
    assert result.text.startswith("exec denied: approval required but no one is available to approve it")
    assert "only an approval of this exact command can allow it" in result.text
    assert "approve this exact command when asked" in result.text
    assert snapshot(outside) == before_out and snapshot(repo) == before_ws


async def test_an_old_bare_entry_still_allows_plain_use(
    call: CallTool, ctx: ToolContext, repo: Path, approvals_file: Path
) -> None:
    _old_file(approvals_file, GIT)
    result = await call("exec", command="git status --short", context=ctx)
    assert not result.is_error, result.text
    assert result.text == "exit code: 0"


async def test_an_exact_approval_then_matches_only_that_exact_command(
    call: CallTool, ctx: ToolContext, repo: Path, approvals_file: Path, broker: ApprovalBroker
) -> None:
    _old_file(approvals_file, GIT)
    approver = Approver("allow-always")
    broker.set_approver(approver)
    command = "git -c alias.top='rev-parse --show-toplevel' top"
    first = await call("exec", command=command, context=ctx)
    assert not first.is_error, first.text
    [request] = approver.asked
    assert "git -c sets configuration" in request.reason and "exact command" in request.reason

    data = _read(approvals_file)
    assert data["version"] == 1
    entries = data["agents"]["main"]["allowlist"]
    assert entries[0]["pattern"] == GIT  # the old entry is kept as it was
    assert entries[1]["binary"] == GIT and entries[1]["args"] == ["-c", "alias.top='rev-parse --show-toplevel'", "top"]
    assert entries[1]["lastCommand"] == command and "pattern" not in entries[1]  # an older claw skips it

    fresh = ApprovalBroker(ExecApprovalsStore(approvals_file))
    asked_again = Approver("deny")
    fresh.set_approver(asked_again)
    again = dataclasses.replace(ctx, approvals=fresh)
    assert not (await call("exec", command=command, context=again)).is_error  # the same command: unasked
    assert not (await call("exec", command=command.replace("git", GIT, 1), context=again)).is_error
    assert asked_again.asked == []
    for variant in (
        "git -c alias.top='rev-parse --git-dir' top",
        'git -c "alias.top=rev-parse --show-toplevel" top',  # the same text, written differently
        "git -c alias.top='rev-parse --show-toplevel' top --help",
        "git -c alias.top='rev-parse --show-toplevel' top extra",
    ):
        result = await call("exec", command=variant, context=again)
        assert result.text == "exec denied by user", variant
    assert len(asked_again.asked) == 4
    assert fresh.allowlist("main") == [
        AllowEntry(GIT),
        AllowEntry(GIT, ("-c", "alias.top='rev-parse --show-toplevel'", "top")),
    ]


async def test_always_on_a_plain_miss_remembers_the_binary_not_the_command(
    call: CallTool, ctx: ToolContext, workspace: Path, approvals_file: Path, broker: ApprovalBroker
) -> None:
    broker.set_approver(Approver("allow-always"))
    assert (await call("exec", command="touch one.txt", context=ctx)).text == "exit code: 0"
    [entry] = _read(approvals_file)["agents"]["main"]["allowlist"]
    assert entry["pattern"] == _real("touch") and "args" not in entry
