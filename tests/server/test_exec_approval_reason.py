"""Over the WebSocket protocol, an exec question carries the policy's reason: in the
`exec.approval.requested` event and in `exec.approval.list`."""

from __future__ import annotations

import asyncio
import json
import os
import shutil

from claw.client.remote import RemoteClient
from tests.server.conftest import TOKEN, Served, connect_frame, open_wire
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call

ATTACK = "git -c alias.x='!touch ../outside/PWNED; id' x"
GIT = os.path.realpath(shutil.which("git") or "/usr/bin/git")


async def test_the_requested_event_and_the_list_carry_the_reason(claw_env: ClawEnv, served: Served) -> None:
    (claw_env.home / "exec-approvals.json").write_text(
        json.dumps({"version": 1, "agents": {"main": {"allowlist": [{"pattern": GIT}]}}})
    )
    approver = await open_wire(served.url, handshake=False)
    await approver.send(connect_frame(caps=["approvals"]))
    await approver.res("c1")
    runner = await RemoteClient.connect(served.url, TOKEN)
    claw_env.server.script(tool_call("exec", {"command": ATTACK}), text("denied"))
    handle = await runner.run("run my alias")
    asked = await approver.recv(timeout=20)
    assert asked["event"] == "exec.approval.requested"
    payload = asked["payload"]  # OpenClaw's shape, as exec.approval.list's rows
    assert payload["approvalKind"] == "exec" and payload["request"]["command"] == ATTACK
    assert payload["expiresAtMs"] > payload["createdAtMs"] > 0
    reason = payload["request"]["reason"]
    assert "git -c sets configuration" in reason and "exact command" in reason
    [pending] = await runner.call("exec.approval.list")
    assert pending["id"] == payload["id"] and pending["request"] == payload["request"]
    assert pending["approvalKind"] == "exec" and pending["request"]["command"] == ATTACK  # OpenClaw's shape
    assert await approver.call("exec.approval.resolve", id=payload["id"], decision="deny")
    assert handle.run_id is not None
    async with asyncio.timeout(20):
        events = [event async for event in runner.events(handle.run_id)]
    result = next(e for e in events if e.stream == "tool" and e.data["phase"] == "result")
    assert result.data["isError"] is True and result.data["result"] == "exec denied by user"
    await approver.close()
    await runner.close()
