"""A real `claw gateway run`: its MCP servers are reported by `claw mcp ls`, and none outlives it."""

from __future__ import annotations

import json

from tests.mcp.conftest import group_alive, pids, stdio_server
from tests.server.test_gateway_cli import GATEWAY_TOKEN, start_gateway
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw, wait_until


def test_servers_of_a_gateway_process_are_listed_and_end_with_it(claw_env: ClawEnv, tmp_path) -> None:
    pidfile = tmp_path / "pids"
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN, "MCP_TEST_PIDFILE": str(pidfile)}
    assert run_claw(env, "init").returncode == 0
    config = claw_env.home / "config.toml"
    extra = stdio_server("basic", envFrom={"MCP_TEST_PIDFILE": "MCP_TEST_PIDFILE"})
    config.write_text(config.read_text() + "\n" + extra)
    gateway = start_gateway(env, claw_env.home)
    try:
        [(_pid, pgid)] = wait_until(lambda: pids(pidfile), what="the server to start")

        def listed() -> list[dict] | None:
            rows = json.loads(run_claw(env, "mcp", "ls", "--json").stdout)
            return rows if rows and rows[0]["state"] == "up" else None

        rows = wait_until(listed, what="the running gateway to report the server up")
        assert rows[0]["tools"] == 7
    finally:
        assert gateway.stop() == 0, gateway.stderr
    assert not group_alive(pgid), "an MCP server outlived `claw gateway run`"


async def test_stdio_serve_talks_to_the_running_gateway(claw_env: ClawEnv) -> None:
    import sys

    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from tests.support.model_server import text
    from tests.support.processes import REPO

    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    assert run_claw(env, "init").returncode == 0
    gateway = start_gateway(env, claw_env.home)
    try:
        claw_env.server.script(text("from the running gateway"))
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "claw", "mcp", "serve"], env={**env, "PYTHONPATH": str(REPO)}, cwd=REPO
        )
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            reply = await session.call_tool("send_message", {"message": "hello"})
            assert reply.content[0].text == "from the running gateway"
        rows = json.loads(run_claw(env, "sessions", "ls", "--json").stdout)  # the session exists in the shared state
        assert rows
    finally:
        assert gateway.stop() == 0, gateway.stderr
