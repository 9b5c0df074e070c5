"""`claw mcp serve` driven by the SDK's own client: send a message and get the reply, read sessions."""

from __future__ import annotations

import sys

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.support.processes import REPO


async def test_stdio_serve_sends_a_message_and_returns_the_reply(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("hello from claw"))
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "claw", "mcp", "serve"], env={**claw_env.env, "PYTHONPATH": str(REPO)},
        cwd=REPO,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        assert names == {"send_message", "list_sessions", "read_session", "search_memory", "list_automations"}
        reply = await session.call_tool("send_message", {"message": "hi"})
        assert not reply.is_error and reply.content[0].text == "hello from claw"
        listed = await session.call_tool("list_sessions", {})
        assert "agent:main:main" in listed.content[0].text
        history = await session.call_tool("read_session", {"session": "agent:main:main"})
        assert "user: hi" in history.content[0].text and "assistant: hello from claw" in history.content[0].text
        failed = await session.call_tool("send_message", {"message": "hi", "agent": "nosuch"})
        assert failed.is_error and "unknown agent 'nosuch'" in failed.content[0].text, failed
    assert claw_env.server.chat_requests[0].body["messages"][-1]["content"] == "hi"


async def test_http_serve_at_slash_mcp_behind_the_gateway_token(claw_env: ClawEnv) -> None:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    from claw.compose import build_gateway
    from claw.config import load_config
    from claw.paths import Paths
    from claw.server.server import GatewayServer
    from claw.server.settings import ServerSettings

    token = "tok-mcp-0123456789abcdef"
    server = GatewayServer(ServerSettings(token=token, port=0))
    paths = Paths.from_env()
    gateway = build_gateway(paths, load_config(paths), services=[server])
    await gateway.start()
    url = f"http://127.0.0.1:{server.port}/mcp"
    try:
        async with httpx2.AsyncClient() as plain:
            refused = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                       headers={"Authorization": "Bearer wrong-token"})
            assert refused.status_code == 401
            missing = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
            assert missing.status_code == 401

        claw_env.server.script(text("over http"))
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=60) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            reply = await session.call_tool("send_message", {"message": "hi", "session": "mcp-test"})
            assert not reply.is_error and reply.content[0].text == "over http"
            automations = await session.call_tool("list_automations", {})
            assert not automations.is_error
    finally:
        await gateway.close()
