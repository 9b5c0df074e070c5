"""A one-shot `claw agent -m` never waits for MCP servers it has not used: the model call starts at once."""

from __future__ import annotations

import json
import socket
import time

from tests.gateway.conftest import write_config
from tests.mcp.conftest import stdio_server
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.support.processes import run_claw


def _tool_names(body: dict) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


def test_a_slow_server_does_not_hold_up_a_one_shot_turn(claw_env: ClawEnv) -> None:
    write_config(claw_env.home, stdio_server("slow", "slow", env={"MCP_TEST_SLOW": "40"}))
    claw_env.server.script(text("answered"))
    began = time.monotonic()
    done = run_claw(claw_env.env, "agent", "-m", "hi")
    took = time.monotonic() - began
    assert done.returncode == 0 and "answered" in done.stdout, done
    assert took < 25, f"the turn waited for the server (40 s to start, 30 s startup timeout): {took:.1f} s"
    assert not any(name.startswith("slow__") for name in _tool_names(claw_env.server.chat_requests[0].body))


def test_an_unreachable_model_fails_at_once_whatever_servers_are_configured(claw_env: ClawEnv) -> None:
    write_config(claw_env.home, stdio_server("slow", "slow", env={"MCP_TEST_SLOW": "40"}))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed once the block ends: connection refused
    env = {**claw_env.env, "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"}
    began = time.monotonic()
    done = run_claw(env, "agent", "-m", "hi")
    assert done.returncode != 0 and "cannot reach" in done.stderr, done
    assert time.monotonic() - began < 25, "it waited for the MCP server before trying the model"


def test_a_server_listed_before_is_offered_at_once_and_started_by_its_first_call(claw_env: ClawEnv) -> None:
    write_config(claw_env.home, stdio_server("basic"))
    assert run_claw(claw_env.env, "mcp", "test", "basic").returncode == 0  # lists its tools, kept for next time
    claw_env.server.script(tool_call("basic__echo", {"text": "ping"}), text("done"))
    done = run_claw(claw_env.env, "agent", "-m", "echo ping")
    assert done.returncode == 0, done
    first, second = claw_env.server.chat_requests[:2]
    assert "basic__echo" in _tool_names(first.body)
    assert "echo: ping" in json.dumps(second.body["messages"][-1])
    assert "waiting for MCP server basic" in done.stderr, done.stderr
