"""Start-up: eager servers start with the gateway's services, lazy ones on first use; all stop with it."""

from __future__ import annotations

import asyncio

from claw.compose import build_gateway
from claw.config import load_config
from claw.gateway.gateway import Gateway
from claw.mcp.capability import McpCapability
from claw.paths import Paths
from tests.gateway.conftest import write_config
from tests.mcp.conftest import group_alive, pids, stdio_server
from tests.support.fixtures import ClawEnv
from tests.support.waiting import deadline


async def test_eager_servers_start_with_the_gateway_and_stop_with_it(claw_env: ClawEnv, tmp_path, monkeypatch) -> None:
    pidfile = tmp_path / "pids"
    monkeypatch.setenv("MCP_TEST_PIDFILE", str(pidfile))
    env = {"envFrom": {"MCP_TEST_PIDFILE": "MCP_TEST_PIDFILE"}}
    config = "".join(stdio_server(f"s{i}", **env) for i in range(3)) + stdio_server("later", startup="lazy", **env)
    write_config(claw_env.home, config)
    paths = Paths.from_env()
    gateway = build_gateway(paths, load_config(paths), services=Gateway.capability_services)
    await gateway.start()
    manager = gateway.capability(McpCapability).manager
    try:
        async with deadline(30, "three eager servers up"):
            while sum(c.status.state == "up" for c in manager.connections.values()) < 3:
                await asyncio.sleep(0.02)
        assert manager.connections["later"].status.state == "stopped"  # lazy: not until a turn needs it
        await gateway.tools.turn_schemas("main", "agent:main:main")
        assert manager.connections["later"].status.state == "up"
        started = pids(pidfile)
        assert len(started) == 4 and all(pid == pgid for pid, pgid in started)
    finally:
        await gateway.close()
    assert [pgid for _pid, pgid in started if group_alive(pgid)] == []
