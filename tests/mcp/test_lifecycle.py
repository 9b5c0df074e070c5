"""Servers that crash, hang, never initialise, change their tool list, or are stopped mid-call; HTTP too."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable

import pytest

from claw.mcp.capability import McpCapability
from claw.mcp.manager import McpManager
from tests.gateway.conftest import collect, phases, write_config
from tests.mcp.conftest import SERVERS, stdio_server
from tests.support.fixtures import ClawEnv
from tests.support.model_server import hang, text, tool_call
from tests.support.waiting import deadline, read_until


def manager_of(client) -> McpManager:
    return client.gateway.capability(McpCapability).manager


async def until(check: Callable[[], bool], what: str, seconds: float = 20.0) -> None:
    async with deadline(seconds, what):
        while not check():
            await asyncio.sleep(0.02)


def _result(events) -> dict:
    return next(e.data for e in events if e.stream == "tool" and e.data["phase"] == "result")


async def test_a_crash_mid_call_is_an_error_then_the_server_restarts(claw_env: ClawEnv, local_clients) -> None:
    write_config(claw_env.home, stdio_server("basic"))
    client = local_clients()
    claw_env.server.script(tool_call("basic__crash", {}), text("it broke"))
    events = await collect(client, (await client.run("crash it")).run_id)
    result = _result(events)
    assert result["isError"] is True and "basic" in result["result"]

    connection = manager_of(client).connections["basic"]
    await until(lambda: connection.status.state == "up" and connection.status.restarts >= 1, "the restart")
    claw_env.server.script(tool_call("basic__echo", {"text": "again"}), text("fine"))
    events = await collect(client, (await client.run("echo")).run_id)
    assert "echo: again" in _result(events)["result"] and _result(events)["isError"] is False


async def test_tools_of_a_server_that_is_down_are_not_offered(claw_env: ClawEnv, local_clients) -> None:
    write_config(claw_env.home, stdio_server("basic") + "[mcp]\nrestartMaxSeconds = 60\n")
    client = local_clients()
    claw_env.server.script(tool_call("basic__crash", {}), text("down now"))
    await collect(client, (await client.run("crash it")).run_id)
    connection = manager_of(client).connections["basic"]
    await until(lambda: connection.status.state != "up", "the server to be down")
    assert not [name for name in manager_of(client).tools if name.startswith("basic__")]


async def test_a_hanging_call_times_out_and_is_cancelled_on_the_server(
    claw_env: ClawEnv, local_clients, tmp_path, monkeypatch
) -> None:
    events_file = tmp_path / "events"
    monkeypatch.setenv("MCP_TEST_EVENTS", str(events_file))
    write_config(claw_env.home, stdio_server("basic", timeoutSeconds=1, envFrom={"MCP_TEST_EVENTS": "MCP_TEST_EVENTS"}))
    client = local_clients()
    claw_env.server.script(tool_call("basic__slow", {"seconds": 30}), text("too slow"))
    events = await collect(client, (await client.run("wait")).run_id)
    result = _result(events)
    assert result["isError"] is True and "timed out" in result["result"]
    await until(lambda: events_file.exists() and "cancelled 30" in events_file.read_text(), "the server's cancel")


async def test_a_server_that_never_initialises_is_reported_and_the_turn_goes_on(
    claw_env: ClawEnv, local_clients
) -> None:
    write_config(claw_env.home, stdio_server("mute", "noinit", startupTimeoutSeconds=1) + stdio_server("basic"))
    client = local_clients()
    claw_env.server.script(text("hello"))
    events = await collect(client, (await client.run("hi")).run_id)
    assert phases(events)[-1] == "end"
    assert "basic__echo" in claw_env.server.chat_requests[0].tool_names
    [mute] = [row for row in await client.call("mcp.status") if row["name"] == "mute"]
    assert mute["state"] in ("down", "starting") and "initialize" in mute["lastError"]


async def test_tools_list_changed_refreshes_the_offered_tools(claw_env: ClawEnv, local_clients) -> None:
    write_config(claw_env.home, stdio_server("basic"))
    client = local_clients()
    claw_env.server.script(tool_call("basic__grow", {}), text("grown"))
    await collect(client, (await client.run("grow")).run_id)
    assert "basic__extra" not in claw_env.server.chat_requests[0].tool_names
    await until(lambda: "basic__extra" in manager_of(client).tools, "the new listing")
    claw_env.server.script(tool_call("basic__extra", {}), text("used it"))
    events = await collect(client, (await client.run("use it")).run_id)
    assert "basic__extra" in claw_env.server.chat_requests[2].tool_names
    assert "extra here" in _result(events)["result"]


async def test_stop_during_a_long_call_cancels_it_on_the_server(
    claw_env: ClawEnv, local_clients, tmp_path, monkeypatch
) -> None:
    events_file = tmp_path / "events"
    monkeypatch.setenv("MCP_TEST_EVENTS", str(events_file))
    write_config(claw_env.home, stdio_server("basic", envFrom={"MCP_TEST_EVENTS": "MCP_TEST_EVENTS"}))
    client = local_clients()
    claw_env.server.script(tool_call("basic__slow", {"seconds": 60}), hang())
    handle = await client.run("wait long")
    seen = []
    async for event in client.events(handle.run_id):
        seen.append(event)
        if event.stream == "tool" and event.data["phase"] == "start":
            await until(lambda: events_file.exists() and "started 60" in events_file.read_text(), "the call")
            assert client.gateway.abort(handle.run_id)
    assert phases(seen)[-1] == "aborted"
    await until(lambda: events_file.exists() and "cancelled 60" in events_file.read_text(), "the server's cancel")


HTTP_AUTHORIZATION = "Bearer not-a-real-token"


@pytest.fixture
def http_server():
    """A streamable HTTP server that answers only requests carrying `Authorization: HTTP_AUTHORIZATION`."""
    proc = subprocess.Popen(
        [sys.executable, str(SERVERS), "http"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "MCP_TEST_AUTHORIZATION": HTTP_AUTHORIZATION},
    )
    try:
        line = read_until(proc.stdout, lambda seen: "\n" in seen, what="the HTTP server's port")
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()


async def test_a_streamable_http_server_with_a_header_from_the_environment(
    http_server: str, claw_env: ClawEnv, local_clients, monkeypatch
) -> None:  # the server first, so that it outlives the clients (they end their session with it)
    monkeypatch.setenv("TEST_MCP_AUTH", HTTP_AUTHORIZATION)
    import tomlkit

    table = {"url": http_server, "headersEnv": {"Authorization": "TEST_MCP_AUTH"}}
    write_config(claw_env.home, tomlkit.dumps({"mcp": {"servers": {"remote": table}}}))
    client = local_clients()
    claw_env.server.script(tool_call("remote__echo", {"text": "over http"}), text("heard"))
    events = await collect(client, (await client.run("echo")).run_id)
    assert "echo: over http" in _result(events)["result"]
    transcript = "".join(p.read_text() for p in claw_env.home.rglob("*.jsonl"))
    assert "not-a-real-token" not in transcript
