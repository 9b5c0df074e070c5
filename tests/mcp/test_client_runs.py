"""MCP servers' tools inside real runs: the scripted model calls them and the result reaches the next request."""

from __future__ import annotations

import json
from pathlib import Path

from claw.untrusted import UNTRUSTED_OPEN
from tests.gateway.conftest import collect, phases, write_config
from tests.mcp.conftest import group_alive, pids, stdio_server
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call


def _tool_message(claw_env: ClawEnv, request: int) -> dict:
    return claw_env.server.chat_requests[request].body["messages"][-1]


async def test_a_stdio_tool_result_reaches_the_next_model_request(
    claw_env: ClawEnv, local_clients, tmp_path, monkeypatch
) -> None:
    pidfile = tmp_path / "pids"
    monkeypatch.setenv("MCP_TEST_PIDFILE", str(pidfile))
    write_config(claw_env.home, stdio_server("basic", envFrom={"MCP_TEST_PIDFILE": "MCP_TEST_PIDFILE"}))
    client = local_clients()
    claw_env.server.script(tool_call("basic__add", {"a": 2, "b": 3}), text("five"))
    events = await collect(client, (await client.run("add them")).run_id)
    assert phases(events)[-1] == "end"

    offered = claw_env.server.chat_requests[0].body["tools"]
    add = next(t for t in offered if t["function"]["name"] == "basic__add")
    assert add["function"]["parameters"]["required"] == ["a", "b"]
    described = add["function"]["description"]  # the server's text, marked as third-party like its results
    assert (
        described.startswith(f"[MCP basic] {UNTRUSTED_OPEN.removesuffix('>>>')}") and "\nAdd two integers." in described
    )
    sent = _tool_message(claw_env, 1)
    assert sent["role"] == "tool" and UNTRUSTED_OPEN.removesuffix(">>>") in sent["content"]
    assert "\n5\n" in sent["content"] and "MCP server basic" in sent["content"]

    [(pid, pgid)] = pids(pidfile)
    assert pid == pgid  # the server leads a process group of its own
    await client.close()
    assert not group_alive(pgid), "an MCP server process outlived the gateway"


async def test_an_image_result_is_saved_and_described(claw_env: ClawEnv, local_clients) -> None:
    write_config(claw_env.home, stdio_server("basic"))
    client = local_clients()
    claw_env.server.script(tool_call("basic__image", {}), text("a pixel"))
    await collect(client, (await client.run("draw")).run_id)
    sent = _tool_message(claw_env, 1)["content"]
    assert "image/png" in sent and "saved to" in sent
    saved = sent.split("saved to ", 1)[1].split("]", 1)[0]
    assert Path(saved).read_bytes().startswith(b"\x89PNG")  # noqa: ASYNC240 - a test's small read


async def test_an_invalid_schema_is_fixed_or_the_tool_skipped_with_a_reason(claw_env: ClawEnv, local_clients) -> None:
    write_config(claw_env.home, stdio_server("odd", "badschema"))
    client = local_clients()
    claw_env.server.script(text("ok"))
    await collect(client, (await client.run("hi")).run_id)
    names = claw_env.server.chat_requests[0].tool_names
    assert "odd__add" in names and "odd__echo" not in names and "odd__image" in names
    add = next(t for t in claw_env.server.chat_requests[0].body["tools"] if t["function"]["name"] == "odd__add")
    assert add["function"]["parameters"] == {"type": "object", "properties": {}}
    rows = await client.call("mcp.tools", server="odd")
    skipped = {r["name"]: r["skipped"] for r in rows if r["skipped"]}
    assert list(skipped) == ["odd__echo"] and "not a valid JSON Schema" in skipped["odd__echo"]


async def test_tools_filters_and_agents_limit_what_is_offered(claw_env: ClawEnv, local_clients) -> None:
    config = stdio_server("basic", tools=["e*", "a*"], excludeTools=["add"]) + stdio_server("other", agents=["work"])
    write_config(claw_env.home, config + "[agents.list.work]\n")
    client = local_clients()
    claw_env.server.script(text("ok"))
    await collect(client, (await client.run("hi")).run_id)
    names = [n for n in claw_env.server.chat_requests[0].tool_names if "__" in n]
    assert names == ["basic__echo"]


async def test_structured_content_without_text_is_given_as_json(claw_env: ClawEnv, local_clients) -> None:
    from types import SimpleNamespace

    from claw.mcp.results import to_tool_result

    result = SimpleNamespace(content=[], structured_content={"total": 7}, is_error=False)
    out = to_tool_result(result, "s", claw_env.home)
    assert json.loads(out.text.split("---\n", 1)[1].rsplit("\n<<<", 1)[0]) == {"total": 7}
