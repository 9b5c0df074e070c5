"""ToolRegistry: the model's raw tool calls in, readable results out, always within the limit."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

from claw.errors import NotFoundError
from claw.tools.base import ToolContext, ToolResult
from claw.tools.registry import ToolRegistry, builtin_tools
from tests.tools.conftest import MakeCtx


class EchoTool:
    """A test tool that does what its arguments say."""

    name = "echo"
    description = "Echo `text`, or fail as told."
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"text": {"type": "string"}, "fail": {"type": "string"}},
        "required": ["text"],
    }

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        if args.get("fail") == "claw":
            raise NotFoundError("no such thing: widget")
        if args.get("fail") == "bug":
            raise RuntimeError("kaboom")
        if args.get("fail") == "cancel":
            raise asyncio.CancelledError
        return ToolResult(args["text"])


@pytest.fixture
def echo_registry() -> ToolRegistry:
    return ToolRegistry([*builtin_tools(), EchoTool()])


def test_builtin_tools_and_their_schemas() -> None:
    registry = ToolRegistry(builtin_tools())
    assert registry.names == ["read", "write", "edit", "exec"]
    schemas = {s["function"]["name"]: s for s in registry.schemas()}
    expected = {
        "read": ({"path", "offset", "limit"}, ["path"]),
        "write": ({"path", "content"}, ["path", "content"]),
        "edit": ({"path", "oldText", "newText"}, ["path", "oldText", "newText"]),
        "exec": ({"command", "timeout"}, ["command"]),
    }
    for name, (properties, required) in expected.items():
        schema = schemas[name]
        assert schema["type"] == "function"
        assert len(schema["function"]["description"]) > 60
        params = schema["function"]["parameters"]
        assert params["type"] == "object"
        assert set(params["properties"]) == properties
        assert params["required"] == required
        assert all(p.get("description") for p in params["properties"].values())


def test_duplicate_names_are_refused() -> None:
    registry = ToolRegistry(builtin_tools())
    registry.register(EchoTool())
    with pytest.raises(ValueError, match="already registered"):
        registry.register(EchoTool())


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"text": ', "echo: arguments are not valid JSON"),
        ("[1, 2]", "echo: arguments must be a JSON object, got list"),
        ('"text"', "echo: arguments must be a JSON object, got str"),
        ("{}", "echo: missing required argument(s) 'text'"),
        ("", "echo: missing required argument(s) 'text'"),
    ],
)
async def test_bad_arguments_become_error_results(
    echo_registry: ToolRegistry, ctx: ToolContext, raw: str, expected: str
) -> None:
    result = await echo_registry.call("echo", raw, ctx)
    assert result.is_error
    assert result.text.startswith(expected)


async def test_unknown_tool_lists_the_known_ones(echo_registry: ToolRegistry, ctx: ToolContext) -> None:
    result = await echo_registry.call("rm_rf", "{}", ctx)
    assert result.is_error
    assert result.text == "unknown tool 'rm_rf'; available tools: read, write, edit, exec, echo"


async def test_tool_errors_become_results(
    echo_registry: ToolRegistry, ctx: ToolContext, caplog: pytest.LogCaptureFixture
) -> None:
    user_error = await echo_registry.call("echo", '{"text": "x", "fail": "claw"}', ctx)
    assert user_error.is_error and user_error.text == "no such thing: widget"
    with caplog.at_level(logging.ERROR, logger="claw.tools.registry"):
        bug = await echo_registry.call("echo", '{"text": "x", "fail": "bug"}', ctx)
    assert bug.is_error and bug.text == "tool echo failed: RuntimeError: kaboom"
    assert "tool echo failed (run run-1" in caplog.text
    with pytest.raises(asyncio.CancelledError):
        await echo_registry.call("echo", '{"text": "x", "fail": "cancel"}', ctx)


async def test_every_result_is_cut_to_the_limit(echo_registry: ToolRegistry, make_ctx: MakeCtx) -> None:
    ctx = make_ctx(result_max_chars=1_000)
    text = "H" * 3_000 + "M" * 10_000 + "T" * 3_000
    result = await echo_registry.call("echo", f'{{"text": "{text}"}}', ctx)
    assert not result.is_error
    assert len(result.text) <= 1_000
    assert result.text.startswith("H" * 600)
    assert result.text.endswith("T" * 150)
    assert "[... truncated echo: kept" in result.text and "of 16000 chars ...]" in result.text
    short = await echo_registry.call("echo", '{"text": "short"}', ctx)
    assert short.text == "short"


async def test_a_big_file_read_is_cut_too(echo_registry: ToolRegistry, make_ctx: MakeCtx, workspace: Path) -> None:
    (workspace / "big.txt").write_text("".join(f"{i:05d} {'y' * 90}\n" for i in range(2_000)))
    ctx = make_ctx(result_max_chars=2_000)
    result = await echo_registry.call("read", '{"path": "big.txt"}', ctx)
    assert len(result.text) <= 2_000
    assert result.text.startswith("00000 ")
    assert "more lines; use offset=" in result.text
