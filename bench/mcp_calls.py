"""MCP: per-call overhead, prompt bytes with 100 tools, and start-up with 5 stdio servers.

Run from the repo root:  python -m bench.mcp_calls  [--calls 200]

Uses the test servers of tests/mcp/servers.py (the SDK's MCPServer over stdio). Measured:

  builtin    `ToolRegistry.call` of a trivial built-in tool (the floor of any call)
  sdk        the SDK's own `session.call_tool` of the server's `echo` (the server's time + the transport)
  claw       `ToolRegistry.call` of `basic__echo` through claw (lookup, the MCP tool, result wrapping)
  overhead   claw − sdk at p50: what claw adds on top of the server's own time

  prompt     bytes of the `tools=[…]` list with 100 MCP tools offered, catalogue off vs on
  startup    5 stdio servers started in parallel: time until every one has listed its tools

Target (issue 17): overhead p50 under 5 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.report import Target, finish, machine_line, median, spread
from claw.config import AgentSettings
from claw.mcp.manager import McpManager
from claw.paths import Paths
from claw.settings.mcp import McpServerSettings, McpSettings
from claw.tools.base import ToolContext, ToolResult
from claw.tools.registry import ToolRegistry

SERVERS = Path(__file__).resolve().parents[1] / "tests" / "mcp" / "servers.py"


class EchoTool:
    name = "echo_builtin"
    description = "Echo."
    parameters: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(f"echo: {args['text']}")


class NoApprovals:
    def allowlist(self, agent_id: str) -> list[Any]:
        return []

    def remember(self, agent_id: str, entry: Any, command: str) -> None:
        return None

    async def ask(self, request: Any) -> None:
        return None


def server(mode: str = "basic") -> McpServerSettings:
    return McpServerSettings(command=sys.executable, args=(str(SERVERS), mode))


async def timed(calls: int, call: Any) -> list[float]:
    for _ in range(10):  # warm-up
        await call()
    out = []
    for _ in range(calls):
        began = time.perf_counter()
        await call()
        out.append(time.perf_counter() - began)
    return out


async def per_call(paths: Paths, calls: int) -> tuple[float, list[str]]:
    manager = McpManager(paths, McpSettings(servers={"basic": server()}))
    registry = ToolRegistry([EchoTool()])
    registry.add_source(manager)
    ctx = ToolContext(paths.data_dir, "main", "s", "r", AgentSettings(), NoApprovals())
    try:
        await manager.ensure_started()
        session = await manager.connections["basic"].session()
        args = json.dumps({"text": "hello"})
        builtin = await timed(calls, lambda: registry.call("echo_builtin", args, ctx))
        sdk = await timed(calls, lambda: session.call_tool("echo", {"text": "hello"}))
        claw = await timed(calls, lambda: registry.call("basic__echo", args, ctx))
    finally:
        await manager.aclose()
    overhead = median(claw) - median(sdk)
    lines = [
        spread("builtin", builtin),
        spread("sdk", sdk),
        spread("claw", claw),
        f"overhead  p50 {overhead * 1000:.3f} ms (claw − sdk)",
    ]
    return overhead, lines


async def prompt_bytes(paths: Paths) -> list[str]:
    os.environ["MCP_TEST_MANY"] = "94"  # + the 6 tools of the basic server = 100
    settings = McpServerSettings(
        command=sys.executable, args=(str(SERVERS), "basic"), env_from={"MCP_TEST_MANY": "MCP_TEST_MANY"}
    )
    lines = []
    for threshold in (1000, 20):
        manager = McpManager(paths, McpSettings(servers={"many": settings}, catalogue_threshold=threshold))
        registry = ToolRegistry()
        registry.add_source(manager)
        try:
            schemas = await registry.turn_schemas("main", "s")
        finally:
            await manager.aclose()
        label = "catalogue off" if threshold == 1000 else "catalogue on"
        size = len(json.dumps(schemas))
        lines.append(f"prompt    {label:14} {len(schemas):3} tools offered, {size:7,} bytes of schemas")
    return lines


async def startup(paths: Paths) -> tuple[float, str]:
    servers = {f"s{i}": server() for i in range(5)}
    manager = McpManager(paths, McpSettings(servers=servers))
    began = time.perf_counter()
    await manager.ensure_started()
    took = time.perf_counter() - began
    up = sum(c.status.state == "up" for c in manager.connections.values())
    await manager.aclose()
    return took, f"startup   5 stdio servers: {up} up, all tools listed in {took * 1000:.0f} ms"


async def main(calls: int) -> int:
    print(machine_line())
    with tempfile.TemporaryDirectory() as tmp:
        paths = Paths(Path(tmp), Path(tmp))
        overhead, lines = await per_call(paths, calls)
        lines += await prompt_bytes(paths)
        took, line = await startup(paths)
        lines.append(line)
    print("\n".join(lines))
    return finish([Target("mcp call overhead p50", overhead * 1000, 5.0, "ms")])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    sys.exit(asyncio.run(main(parser.parse_args().calls)))
