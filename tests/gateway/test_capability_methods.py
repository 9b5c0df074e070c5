"""A capability's RPC methods are bound to what the capability holds (its manager, registry, host): they
answer the same when `Gateway.call_method` is not the caller and no gateway is handed to them at all.

The contract `capabilities-via-host` keeps the methods modules from importing `Gateway`; this keeps them
from using the gateway `call_method` still hands them (as `object`), which no import contract can see."""

from __future__ import annotations

import time
from typing import Any

import pytest

from claw.api.params import CHANNEL_KEY
from claw.compose import build_gateway
from claw.config import load_config
from claw.errors import ConfigError, NotFoundError
from claw.gateway.context_commands import ContextCapability
from claw.gateway.gateway import Gateway
from claw.paths import Paths
from claw.subagents.capability import SubagentsCapability
from claw.subagents.record import SubagentRecord
from claw.workspace import workspace_dir
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

NOT_A_GATEWAY = object()
"""What the methods get in place of the gateway: anything they asked of it would fail."""

READ_ONLY_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory.status", {}),
    ("memory.search", {"query": "rollback"}),
    ("memory.get", {"path": "MEMORY.md"}),
    ("skills.list", {"all": True}),
    ("skills.check", {}),
    ("skills.info", {"name": "daily-brief"}),
    ("skills.status", {}),
    ("hooks.list", {}),
    ("hooks.status", {"agentId": "main"}),
    ("automations.list", {}),
    ("cron.list", {"includeDisabled": True}),
    ("cron.status", {}),
    ("cron.runs", {"scope": "all"}),
    ("subagents.list", {}),
    ("subagents.wait", {"parentRunId": "run-none", "timeoutMs": 0}),
    ("channels.list", {}),
    ("channels.status", {}),
    ("pairing.list", {}),
    ("outbox.list", {}),
    ("mcp.status", {}),
    ("mcp.tools", {}),
    ("usage.summary", {"by": "day"}),
    ("usage.cost", {}),
    ("usage.calls", {}),
    ("usage.notices", {}),
]
"""A call of every capability, including each method that asks its host for something (the settings, a
workspace, the gateway's services)."""

CALLED_BELOW = {
    "memory.index",
    "hooks.enable",
    "hooks.disable",
    "automations.add",
    "automations.get",
    "automations.runs",
    "automations.update",
    "automations.run",
    "automations.remove",
    "cron.add",
    "cron.get",
    "cron.update",
    "cron.run",
    "cron.remove",
    "message.action",
    "subagents.abort",
    "pairing.approve",
    "outbox.retry",
    "usage.prune",
}
"""The methods that change something, or need something made first: the tests below make it."""


def _gateway() -> Gateway:
    paths = Paths.from_env()
    config = load_config(paths)
    memory_file = workspace_dir(paths, config) / "MEMORY.md"
    memory_file.parent.mkdir(parents=True, exist_ok=True)
    memory_file.write_text("# Memory\n\nThe etcd rollback runbook is in memory/ops.md.\n", encoding="utf-8")
    return build_gateway(paths, config)


def _method(gateway: Gateway, name: str) -> Any:
    """The method `name` as its capability offers it (a fresh table, not the gateway's)."""
    for capability in gateway.capabilities:
        if not isinstance(capability, ContextCapability):  # the core's own: it uses the runner
            methods = capability.methods()
            if name in methods:
                return methods[name]
    raise AssertionError(f"no capability offers {name!r}")


def test_every_capability_method_is_called_here(claw_env: ClawEnv) -> None:
    """The calls here are checked against what the capabilities offer, so a new method is not missed."""
    paths = Paths.from_env()
    gateway = build_gateway(paths, load_config(paths))
    offered = {
        name
        for capability in gateway.capabilities
        if not isinstance(capability, ContextCapability)
        for name in capability.methods()
    }
    assert offered == {name for name, _ in READ_ONLY_CALLS} | CALLED_BELOW, "call the new method in this file"


@pytest.mark.parametrize(("name", "params"), READ_ONLY_CALLS, ids=[name for name, _ in READ_ONLY_CALLS])
async def test_a_method_needs_no_gateway(name: str, params: dict[str, Any], claw_env: ClawEnv) -> None:
    gateway = _gateway()
    try:
        via_gateway = await gateway.call_method(name, params)
        direct = await _method(gateway, name)(NOT_A_GATEWAY, {**params, CHANNEL_KEY: "cli"})
        assert _unsampled(direct) == _unsampled(via_gateway)
    finally:
        await gateway.close()


def _unsampled(answer: Any) -> Any:
    """An answer without `ts`, the time it was read (OpenClaw's channels.status carries one)."""
    return {k: v for k, v in answer.items() if k != "ts"} if isinstance(answer, dict) else answer


async def test_methods_that_change_state_need_no_gateway(claw_env: ClawEnv) -> None:
    gateway = _gateway()
    call = {CHANNEL_KEY: "cli"}

    async def direct(method: str, **params: Any) -> Any:
        return await _method(gateway, method)(NOT_A_GATEWAY, {**call, **params})

    try:
        indexed = await direct("memory.index", force=True)
        assert indexed["rebuilt"] is True and indexed["status"]["files"] == 1

        disabled = await direct("hooks.disable", name="session-memory")
        assert disabled["name"] == "session-memory" and disabled["enabled"] is False
        assert "session-memory" in Paths.from_env().config_file.read_text(encoding="utf-8")
        assert (await direct("hooks.enable", name="session-memory"))["enabled"] is True

        job = await direct("automations.add", every="1h", message="tick", enabled=False)
        assert len((await direct("automations.get", id=job["id"], upcoming=2))["upcoming"]) == 2
        assert (await direct("automations.update", id=job["id"], name="ticker"))["name"] == "ticker"
        claw_env.server.script(text("tock"))
        ran = await direct("automations.run", id=job["id"], wait=True)  # a turn its host starts
        assert ran["status"] == "ok" and ran["output"] == "tock"
        assert [r["id"] for r in await direct("automations.runs", id=job["id"])] == [ran["id"]]
        assert (await direct("automations.remove", id=job["id"]))["removed"] == job["id"]
        schedule = {"kind": "cron", "expr": "0 3 * * *", "tz": "UTC"}
        payload = {"kind": "agentTurn", "message": "tick"}
        cron = await direct("cron.add", name="nightly", schedule=schedule, sessionTarget="isolated",
                            wakeMode="now", payload=payload, enabled=False)  # fmt: skip
        assert (await direct("cron.get", id=cron["id"]))["payload"] == payload
        assert (await direct("cron.update", jobId=cron["id"], patch={"name": "nightly-2"}))["name"] == "nightly-2"
        assert (await direct("cron.run", id=cron["id"], mode="if-enabled"))["ran"] is False  # it is disabled
        assert (await direct("cron.remove", id=cron["id"]))["removed"] is True
        send = {"channel": "telegram", "action": "send", "params": {"to": "1", "message": "hi"}, "idempotencyKey": "k"}
        with pytest.raises(NotFoundError, match="no telegram account is configured"):
            await direct("message.action", **send)  # the send itself: tests/interop/test_openclaw_cli.py
        tomorrow = time.strftime("%Y-%m-%d", time.localtime(time.time() + 86_400))
        assert (await direct("usage.prune", before=tomorrow))["deleted"] == 1  # the job's one model call

        # subagents.abort asks its host to stop the run; a child whose run is over is not stopped again.
        registry = gateway.capability(SubagentsCapability).registry
        registry.add(
            SubagentRecord(
                run_id="run-child",
                session_key="agent:main:subagent:child",
                agent_id="main",
                parent_run_id="run-parent",
                parent_session_key="agent:main:main",
                task="nothing",
                depth=1,
                timeout_s=60,
                created_at=time.time(),
            )
        )
        assert await direct("subagents.abort", runId="run-child") == {"runId": "run-child", "aborted": 0}

        with pytest.raises(NotFoundError, match="unknown or expired pairing code"):
            await direct("pairing.approve", channel="telegram", code="ABCD2345")
        with pytest.raises(NotFoundError):
            await direct("outbox.retry", id=999)
    finally:
        await gateway.close()


@pytest.mark.parametrize(
    ("name", "params"), [("memory.get", {"path": "MEMORY.md"}), ("memory.status", {}), ("hooks.list", {})]
)
async def test_an_unknown_agent_is_refused_without_the_gateway(
    name: str, params: dict[str, Any], claw_env: ClawEnv
) -> None:
    gateway = _gateway()
    try:
        with pytest.raises(ConfigError, match="unknown agent 'ghost'"):
            await _method(gateway, name)(NOT_A_GATEWAY, {**params, "agentId": "ghost", CHANNEL_KEY: "cli"})
    finally:
        await gateway.close()
