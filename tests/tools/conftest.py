"""Fixtures for the built-in tool tests: a real workspace, a real outside directory, a real approvals file."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from claw.config import AgentSettings
from claw.tools.base import ToolContext, ToolResult
from claw.tools.exec_approvals import ApprovalBroker, ExecApprovalsStore
from claw.tools.registry import ToolRegistry, builtin_tools

MakeCtx = Callable[..., ToolContext]
CallTool = Callable[..., Awaitable[ToolResult]]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the workspace that no tool may touch."""
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("top secret\n")
    return path


@pytest.fixture
def approvals_file(tmp_path: Path) -> Path:
    return tmp_path / "state" / "exec-approvals.json"


@pytest.fixture
def broker(approvals_file: Path) -> ApprovalBroker:
    return ApprovalBroker(ExecApprovalsStore(approvals_file))


@pytest.fixture
def make_ctx(workspace: Path, broker: ApprovalBroker) -> MakeCtx:
    """Build a ToolContext; `exec=` and `tools=` take the config.toml shapes of those sections."""

    def make(
        *,
        exec: dict[str, Any] | None = None,
        result_max_chars: int | None = None,
        read_roots: tuple[Path, ...] = (),
        **agent: Any,
    ) -> ToolContext:
        tools: dict[str, Any] = {"exec": exec or {}}
        if result_max_chars is not None:
            tools["resultMaxChars"] = result_max_chars
        settings = AgentSettings.model_validate({**agent, "tools": tools})
        return ToolContext(
            workspace=workspace,
            agent_id="main",
            session_key="agent:main:main",
            run_id="run-1",
            settings=settings,
            approvals=broker,
            read_roots=read_roots,
        )

    return make


@pytest.fixture
def ctx(make_ctx: MakeCtx) -> ToolContext:
    return make_ctx()


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry(builtin_tools())


@pytest.fixture
def call(registry: ToolRegistry, ctx: ToolContext) -> CallTool:
    """Call a tool the way the agent loop does: by name, with JSON arguments."""

    async def call_tool(name: str, *, context: ToolContext | None = None, **args: Any) -> ToolResult:
        return await registry.call(name, json.dumps(args), context or ctx)

    return call_tool
