"""The tools an agent can call, by name, and the one place a tool call is turned into a result.

`ToolRegistry.call` is the boundary between the model and the tools: whatever
the model sends (bad JSON, an unknown name, missing arguments) and whatever a
tool does (refuse with a `ClawError`, crash) comes back as a `ToolResult` the
model can read — never as an exception that ends the run. Cancellation is the
exception: it propagates, because the run is being stopped. Every result is
cut to the agent's per-result limit here, so no tool can flood the context.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from claw.errors import ClawError
from claw.paths import Paths
from claw.tools.base import Tool, ToolContext, ToolResult, tool_schema
from claw.tools.edit import EditTool
from claw.tools.exec import ExecTool
from claw.tools.read import ReadTool
from claw.tools.sessions_search import SessionsSearchTool
from claw.tools.tool_search import ToolSearchTool
from claw.tools.truncate import cut_head_tail, result_limit
from claw.tools.write import WriteTool

log = logging.getLogger(__name__)


def builtin_tools(paths: Paths | None = None) -> list[Tool]:
    """A fresh instance of every built-in tool. Given the gateway's state `paths`, `exec` records the commands
    it runs there, and what the commands of a gateway that died left running is ended now (gateway start)."""
    exec_tool = ExecTool(paths)
    exec_tool.end_leftovers()
    search = [SessionsSearchTool(paths)] if paths is not None else []  # it reads the state under `paths`
    return [ReadTool(), WriteTool(), EditTool(), exec_tool, *search]


class ToolSource(Protocol):
    """Tools that come and go while the gateway runs (an MCP server's, listed while it is up): asked
    for every turn, so a tool appears or disappears between turns without re-registering anything."""

    name: str

    async def tools_for(self, agent_id: str, session_key: str) -> Sequence[Tool]:
        """The tools offered to `agent_id`'s turn in `session_key` now (may start what must start first)."""
        ...

    def find(self, name: str, agent_id: str) -> Tool | None:
        """The tool `name` as `agent_id` may call it now, offered this turn or not; None if there is none."""
        ...


class ToolRegistry:
    """Tools by name: their schemas for the model, and `call` to run one from raw model output."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._sources: list[ToolSource] = []
        self._hidden: set[str] = set()
        for tool in tools:
            self.register(tool)
        # Callable always, offered only where a prompt lists the tools it leaves out (small-window mode).
        self.register(ToolSearchTool(self.all_tools), offered=False)

    def add_source(self, source: ToolSource) -> None:
        """Offer `source`'s tools too, after the registered ones (which keep a name both have)."""
        self._sources.append(source)

    async def turn_schemas(self, agent_id: str, session_key: str, exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
        """`schemas`, plus what every source offers this turn; a failing source is left out of the turn."""
        left_out = set(exclude)
        schemas = self.schemas(left_out)
        taken = set(self._tools) | left_out
        for source in self._sources:
            try:
                offered = await source.tools_for(agent_id, session_key)
            except Exception:  # a broken source must not break the turn
                log.exception("tool source %s failed; its tools are left out of this turn", source.name)
                continue
            for tool in offered:
                if tool.name not in taken:
                    taken.add(tool.name)
                    schemas.append(tool_schema(tool))
        return schemas

    def _find(self, name: str, agent_id: str) -> Tool | None:
        tool = self._tools.get(name)
        for source in self._sources:
            if tool is not None:
                break
            tool = source.find(name, agent_id)
        return tool

    def register(self, tool: Tool, *, offered: bool = True) -> None:
        """Add `tool`; one not `offered` is left out of `schemas` unless asked for by name (`tool_search`)."""
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        if not offered:
            self._hidden.add(tool.name)

    def all_tools(self, agent_id: str) -> list[Tool]:
        """Every registered tool, the hidden ones included (what `tool_search` looks through)."""
        return list(self._tools.values())

    def schema_of(self, name: str) -> dict[str, Any] | None:
        """The schema of a registered tool, offered or not."""
        tool = self._tools.get(name)
        return tool_schema(tool) if tool is not None else None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        """The offered tools' names (not `tool_search`, which only a small-window prompt offers)."""
        return [name for name in self._tools if name not in self._hidden]

    def schemas(self, exclude: Iterable[str] = ()) -> list[dict[str, Any]]:
        """The OpenAI `tools=[…]` list, in registration order, without the tools named in `exclude`."""
        left_out = set(exclude) | self._hidden
        return [tool_schema(tool) for tool in self._tools.values() if tool.name not in left_out]

    async def call(self, name: str, raw_arguments: str, ctx: ToolContext) -> ToolResult:
        """Run tool `name` with the model's JSON `raw_arguments`; always returns a (cut) result."""
        result = await self._call(name, raw_arguments, ctx)
        return ToolResult(cut_head_tail(result.text, result_limit(ctx.settings), label=name), result.is_error)

    async def _call(self, name: str, raw_arguments: str, ctx: ToolContext) -> ToolResult:
        tool = self._find(name, ctx.agent_id)
        if name in ctx.denied_tools:
            return ToolResult(f"{name} is not available here: {ctx.denied_tools[name]}", is_error=True)
        if tool is None:
            known = ", ".join(n for n in self.names if n not in ctx.denied_tools) or "none"
            return ToolResult(f"unknown tool {name!r}; available tools: {known}", is_error=True)
        args = _parse_arguments(name, raw_arguments)
        if isinstance(args, ToolResult):
            return args
        missing = [p for p in tool.parameters.get("required", ()) if p not in args]
        if missing:
            listed = ", ".join(repr(p) for p in missing)
            return ToolResult(f"{name}: missing required argument(s) {listed}", is_error=True)
        try:
            return await tool.run(args, ctx)
        except ClawError as exc:
            return ToolResult(exc.message, is_error=True)
        except Exception as exc:
            log.exception("tool %s failed (run %s, session %s)", name, ctx.run_id, ctx.session_key)
            return ToolResult(f"tool {name} failed: {type(exc).__name__}: {exc}", is_error=True)


def _parse_arguments(name: str, raw: str) -> dict[str, Any] | ToolResult:
    if not raw.strip():
        return {}  # some models send "" for a call without arguments
    try:
        args = json.loads(raw)
    except (TypeError, ValueError) as exc:
        return ToolResult(f"{name}: arguments are not valid JSON ({exc}); send a JSON object", is_error=True)
    if not isinstance(args, dict):
        kind = type(args).__name__
        return ToolResult(f"{name}: arguments must be a JSON object, got {kind}", is_error=True)
    return args
