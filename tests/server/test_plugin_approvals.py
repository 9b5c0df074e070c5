"""claw's exec questions reach a client that answers only plugin approvals (OpenClaw's TUI declares
`plugin-approvals`): as `plugin.approval.requested`, in `plugin.approval.list`, answered with
`plugin.approval.resolve` — and only for a client granted `operator.approvals`."""

from __future__ import annotations

import asyncio
from typing import Any

from claw.api.approval_rows import DESCRIPTION_MAX, TITLE_MAX, plugin_approval_row
from claw.client.remote import RemoteClient
from claw.tools.base import ApprovalRequest
from tests.server.conftest import TOKEN, MakeServed, Served, Wire, connect_frame, open_wire
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call

TUI_CAPS = ["agent-kind", "plugin-approvals", "task-suggestions", "tool-events"]
"""The caps OpenClaw's TUI sends in `connect` (it has no `approvals`: it prompts for plugin approvals only)."""
TUI_SCOPES = ["operator.admin", "operator.read", "operator.write", "operator.approvals"]
COMMAND = "touch made-by-exec.txt"


async def tui_like(url: str, scopes: list[str]) -> Wire:
    wire = await open_wire(url, handshake=False)
    await wire.send(connect_frame(caps=TUI_CAPS, scopes=scopes))
    hello = await wire.res("c1")
    assert hello["ok"], hello
    assert {"plugin.approval.list", "plugin.approval.resolve"} <= set(hello["payload"]["features"]["methods"])
    return wire


async def next_event(wire: Wire, name: str) -> dict[str, Any]:
    while True:
        frame = await wire.recv(timeout=20)
        if frame["type"] == "event" and frame["event"] == name:
            return frame["payload"]


async def tool_result(runner: RemoteClient, run_id: str | None) -> dict[str, Any]:
    assert run_id is not None
    async with asyncio.timeout(30):
        events = [event async for event in runner.events(run_id)]
    return next(e.data for e in events if e.stream == "tool" and e.data["phase"] == "result")


async def test_a_plugin_approval_client_is_asked_and_its_answer_runs_the_command(
    claw_env: ClawEnv, served: Served
) -> None:
    tui = await tui_like(served.url, TUI_SCOPES)
    runner = await RemoteClient.connect(served.url, TOKEN)
    claw_env.server.script(tool_call("exec", {"command": COMMAND}), text("made it"))
    handle = await runner.run("make the file")

    asked = await next_event(tui, "plugin.approval.requested")
    request = asked["request"]
    assert request["title"] == f"Run {COMMAND}" and request["toolName"] == "exec"
    assert COMMAND in request["description"] and "asked because" in request["description"]
    assert request["allowedDecisions"] == ["allow-once", "allow-always", "deny"]
    assert request["sessionKey"] == "agent:main:main" and request["agentId"] == "main"
    assert asked["expiresAtMs"] > asked["createdAtMs"] > 0  # OpenClaw's TUI drops a prompt without both
    assert await tui.call("plugin.approval.list") == [asked]

    assert await tui.call("plugin.approval.resolve", id=asked["id"], decision="allow-once") == {
        "ok": True, "id": asked["id"], "decision": "allow-once",
    }  # fmt: skip
    result = await tool_result(runner, handle.run_id)
    assert result["isError"] is False
    assert (claw_env.home / "workspace" / "made-by-exec.txt").exists()
    closed = await next_event(tui, "plugin.approval.resolved")
    assert closed["id"] == asked["id"] and closed["outcome"] == "answered"
    assert await tui.call("plugin.approval.list") == []

    again = await tui.request("plugin.approval.resolve", {"id": asked["id"], "decision": "deny"})
    assert again["ok"] is False and "approval expired or not found" in again["error"]["message"]  # the TUI: stale
    await tui.close()
    await runner.close()


async def test_a_deny_from_the_prompt_refuses_the_command(claw_env: ClawEnv, served: Served) -> None:
    tui = await tui_like(served.url, TUI_SCOPES)
    runner = await RemoteClient.connect(served.url, TOKEN)
    claw_env.server.script(tool_call("exec", {"command": COMMAND}), text("refused"))
    handle = await runner.run("make the file")
    asked = await next_event(tui, "plugin.approval.requested")
    bad = await tui.request("plugin.approval.resolve", {"id": asked["id"], "decision": "maybe"})
    assert bad["ok"] is False and "invalid decision" in bad["error"]["message"]
    await tui.call("plugin.approval.resolve", id=asked["id"], decision="deny")
    result = await tool_result(runner, handle.run_id)
    assert result["isError"] is True and result["result"] == "exec denied by user"
    assert not (claw_env.home / "workspace" / "made-by-exec.txt").exists()
    await tui.close()
    await runner.close()


async def test_without_the_approvals_scope_a_client_is_not_asked(claw_env: ClawEnv, make_served: MakeServed) -> None:
    served = await make_served(approval_timeout_s=30.0)
    tui = await tui_like(served.url, ["operator.read", "operator.write"])
    refused = await tui.request("plugin.approval.list")
    assert refused["ok"] is False and refused["error"]["details"]["missingScope"] == "operator.approvals"
    runner = await RemoteClient.connect(served.url, TOKEN)
    claw_env.server.script(tool_call("exec", {"command": COMMAND}), text("no one to ask"))
    handle = await runner.run("make the file")
    result = await tool_result(runner, handle.run_id)  # at once: nobody may answer, so askFallback (deny)
    assert result["isError"] is True and "askFallback" in str(result["result"])
    assert not any(e["event"] == "plugin.approval.requested" for e in tui.events)
    await tui.close()
    await runner.close()


def test_a_long_command_is_clipped_to_openclaws_limits() -> None:
    command = "python3 -c 'print(1)'\n" + "x" * 2000
    request = ApprovalRequest("a1", "main", "agent:main:main", command, "/work", "not on the allowlist")
    row = plugin_approval_row(request, created_at_ms=1, expires_at_ms=2)
    title, description = row["request"]["title"], row["request"]["description"]
    assert len(title) == TITLE_MAX and title.endswith("…") and "\n" not in title
    assert len(description) == DESCRIPTION_MAX and description.startswith("python3 -c")
    mcp = ApprovalRequest("a2", "main", "agent:main:main", "{}", "/work", "asks first", tool="files__delete")
    assert plugin_approval_row(mcp, created_at_ms=1, expires_at_ms=2)["request"]["title"] == "Call files__delete: {}"
