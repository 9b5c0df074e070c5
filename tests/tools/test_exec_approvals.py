"""Exec approvals end to end: the approver's decisions, the persisted file, the fallback, resolve by id."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

from claw.tools.base import ApprovalRequest, Decision, ToolContext
from claw.tools.exec_approvals import ApprovalBroker, ExecApprovalsStore
from tests.tools.conftest import CallTool, MakeCtx

TOUCH = os.path.realpath(shutil.which("touch") or "/usr/bin/touch")
ECHO = os.path.realpath(shutil.which("echo") or "/usr/bin/echo")


def _persisted(path: Path) -> tuple[int, dict[str, Any]] | None:
    """The approvals file's permission bits and content, or None if it was never written."""
    if not path.exists():
        return None
    return stat.S_IMODE(path.stat().st_mode), json.loads(path.read_text())


class RecordingApprover:
    """An approver that answers with a fixed decision and remembers what it was asked."""

    def __init__(self, decision: Decision) -> None:
        self.decision = decision
        self.requests: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.decision


@pytest.fixture
def allowlist_ctx(make_ctx: MakeCtx) -> ToolContext:
    return make_ctx(exec={"security": "allowlist", "ask": "on-miss"})


def _request(request_id: str = "req-1") -> ApprovalRequest:
    return ApprovalRequest(
        id=request_id,
        agent_id="main",
        session_key="agent:main:main",
        command="touch x",
        cwd="/w",
        reason="test",
    )


async def test_allow_once_runs_and_remembers_nothing(
    call: CallTool, allowlist_ctx: ToolContext, broker: ApprovalBroker, workspace: Path, approvals_file: Path
) -> None:
    approver = RecordingApprover("allow-once")
    broker.set_approver(approver)
    result = await call("exec", command="touch made.txt", context=allowlist_ctx)
    assert result.text == "exit code: 0"
    assert (workspace / "made.txt").exists()
    [request] = approver.requests
    assert request.command == "touch made.txt"
    assert request.cwd == str(workspace)
    assert (request.agent_id, request.session_key) == ("main", "agent:main:main")
    assert len(request.id) == 32 and "allowlist miss" in request.reason
    assert _persisted(approvals_file) is None
    assert broker.pending() == []


async def test_allow_always_persists_the_resolved_binary(
    call: CallTool, allowlist_ctx: ToolContext, broker: ApprovalBroker, workspace: Path, approvals_file: Path
) -> None:
    approver = RecordingApprover("allow-always")
    broker.set_approver(approver)
    assert (await call("exec", command="touch first.txt", context=allowlist_ctx)).text == "exit code: 0"

    persisted = _persisted(approvals_file)
    assert persisted is not None
    mode, data = persisted
    assert mode == 0o600
    assert data["version"] == 1
    [entry] = data["agents"]["main"]["allowlist"]
    assert entry["pattern"] == TOUCH
    assert entry["lastCommand"] == "touch first.txt"
    assert entry["addedAt"]

    # The same binary now runs without asking, even from a fresh broker reading the file.
    fresh = ApprovalBroker(ExecApprovalsStore(approvals_file))
    fresh.set_approver(approver)
    ctx = dataclasses.replace(allowlist_ctx, approvals=fresh)
    assert (await call("exec", command="touch second.txt", context=ctx)).text == "exit code: 0"
    assert len(approver.requests) == 1
    assert (workspace / "second.txt").exists()


async def test_deny_refuses_and_runs_nothing(
    call: CallTool, allowlist_ctx: ToolContext, broker: ApprovalBroker, workspace: Path
) -> None:
    broker.set_approver(RecordingApprover("deny"))
    result = await call("exec", command="touch P", context=allowlist_ctx)
    assert result.is_error and result.text == "exec denied by user"
    assert not (workspace / "P").exists()


async def test_no_approver_falls_back_to_deny(call: CallTool, allowlist_ctx: ToolContext, workspace: Path) -> None:
    result = await call("exec", command="touch P", context=allowlist_ctx)
    assert result.is_error
    assert result.text.startswith("exec denied: approval required but no one is available to approve it")
    assert "askFallback=deny" in result.text
    assert "claw config set agents.defaults.tools.exec.security full" in result.text
    assert not (workspace / "P").exists()


async def test_fallback_full_and_allowlist(call: CallTool, make_ctx: MakeCtx, workspace: Path) -> None:
    full = make_ctx(exec={"security": "allowlist", "ask": "on-miss", "askFallback": "full"})
    assert (await call("exec", command="touch F", context=full)).text == "exit code: 0"
    listed = make_ctx(exec={"security": "allowlist", "ask": "always", "askFallback": "allowlist", "allowlist": [TOUCH]})
    assert (await call("exec", command="touch L", context=listed)).text == "exit code: 0"
    unlisted = make_ctx(exec={"security": "allowlist", "ask": "always", "askFallback": "allowlist"})
    assert (await call("exec", command="touch U", context=unlisted)).is_error
    assert (workspace / "F").exists() and (workspace / "L").exists() and not (workspace / "U").exists()


async def test_denied_chains_leave_no_side_effect_file(call: CallTool, make_ctx: MakeCtx, workspace: Path) -> None:
    ctx = make_ctx(exec={"security": "allowlist", "ask": "off", "allowlist": [ECHO]})
    for command in [
        "echo ok; touch P",
        "echo ok && touch P",
        "echo $(touch P)",
        "echo `touch P`",
        "echo ok > P",
    ]:
        result = await call("exec", command=command, context=ctx)
        assert result.is_error and result.text.startswith("exec denied: allowlist miss ("), command
    assert not (workspace / "P").exists()
    assert (await call("exec", command="echo ok", context=ctx)).text == "ok\n\nexit code: 0"


async def test_security_deny_says_how_to_allow(call: CallTool, make_ctx: MakeCtx) -> None:
    result = await call("exec", command="echo hi", context=make_ctx(exec={"security": "deny"}))
    assert result.is_error
    assert result.text.startswith("exec denied: exec is disabled (security=deny); enable it with")
    assert "claw config set agents.defaults.tools.exec.security full" in result.text


async def test_a_remote_client_resolves_a_pending_request_by_id(broker: ApprovalBroker) -> None:
    asked, approver_cancelled = asyncio.Event(), asyncio.Event()

    async def silent_approver(request: ApprovalRequest) -> Decision:
        asked.set()
        try:
            await asyncio.Event().wait()  # a UI that never answers itself
        except asyncio.CancelledError:
            approver_cancelled.set()
            raise
        raise AssertionError("unreachable")

    broker.set_approver(silent_approver)
    asking = asyncio.create_task(broker.ask(_request("req-42")))
    await asyncio.wait_for(asked.wait(), 1)
    assert [r.id for r in broker.pending()] == ["req-42"]
    assert broker.resolve("nope", "deny") is False

    assert broker.resolve("req-42", "allow-once") is True
    assert await asking == "allow-once"
    assert broker.pending() == []
    assert broker.resolve("req-42", "deny") is False
    await asyncio.wait_for(approver_cancelled.wait(), 1)
    with pytest.raises(ValueError):
        broker.resolve("req-42", "maybe")  # type: ignore[arg-type]


async def test_an_aborted_run_cancels_its_question_and_leaves_nothing_pending(
    call: CallTool, allowlist_ctx: ToolContext, broker: ApprovalBroker, workspace: Path
) -> None:
    asked = asyncio.Event()

    async def never_answers(request: ApprovalRequest) -> Decision:
        asked.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    broker.set_approver(never_answers)
    task = asyncio.create_task(call("exec", command="touch P", context=allowlist_ctx))
    await asyncio.wait_for(asked.wait(), 5)
    assert [r.command for r in broker.pending()] == ["touch P"]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert broker.pending() == []
    assert not (workspace / "P").exists()


async def test_without_an_approver_ask_returns_none(broker: ApprovalBroker) -> None:
    assert await broker.ask(_request()) is None
    broker.set_approver(RecordingApprover("deny"))
    broker.set_approver(None)
    assert await broker.ask(_request()) is None


async def test_a_failing_approver_counts_as_nobody(broker: ApprovalBroker) -> None:
    async def broken(request: ApprovalRequest) -> Decision:
        raise RuntimeError("ui went away")

    broker.set_approver(broken)
    assert await broker.ask(_request()) is None
    assert broker.pending() == []


def test_store_updates_entries_per_agent_and_survives_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "state" / "exec-approvals.json"
    store = ExecApprovalsStore(path)
    store.remember("main", "/usr/bin/git", "git status")
    store.remember("main", "/usr/bin/git", "git log")
    store.remember("ops", "/usr/bin/make", "make deploy")
    assert store.allowlist("main") == ["/usr/bin/git"]
    assert store.allowlist("ops") == ["/usr/bin/make"]
    assert store.allowlist("other") == []
    data = json.loads(path.read_text())
    assert data["agents"]["main"]["allowlist"][0]["lastCommand"] == "git log"
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700

    path.write_text("{not json")
    assert store.allowlist("main") == []
    assert (path.parent / "exec-approvals.json.bad").read_text() == "{not json"
    store.remember("main", "/usr/bin/ls", "ls")
    assert store.allowlist("main") == ["/usr/bin/ls"]


async def test_a_command_no_entry_can_match_is_offered_only_once(
    call: CallTool, make_ctx: MakeCtx, broker: ApprovalBroker, workspace: Path
) -> None:
    # Nobody to ask: the advice is what can work — no "add its binary to the allowlist" for a redirection.
    alone = make_ctx(exec={"security": "allowlist", "ask": "on-miss"})
    denied = await call("exec", command="echo ok > P", context=alone)
    assert denied.is_error and "redirection" in denied.text
    assert "allowlist" in denied.text and "add its binary" not in denied.text and "approve it once" in denied.text
    plain = await call("exec", command="touch Q", context=alone)
    assert "add its binary to agents.defaults.tools.exec.allowlist" in plain.text
    # Someone to ask: the question says "always" is not on offer for it, and offers it for a plain miss.
    approver = RecordingApprover("allow-once")
    broker.set_approver(approver)
    await call("exec", command="echo ok > P", context=alone)
    await call("exec", command="touch Q", context=alone)
    redirect, touch = approver.requests
    assert redirect.allow_always is False and "approved once" in redirect.reason
    assert touch.allow_always is True
