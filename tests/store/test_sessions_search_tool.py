"""The `sessions_search` tool: offered in the operator's sessions, not in channel sessions unless asked."""

from __future__ import annotations

import json
from collections.abc import Callable

from claw.client.local import LocalClient
from claw.compose import build_gateway
from claw.config import load_config
from claw.paths import Paths
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call


async def _turn(client: LocalClient, message: str, session: str) -> None:
    handle = await client.run(message, session_key=session)
    async for _event in client.events(handle.run_id):
        pass


def _tool_names(body: dict[str, object]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools") or []]  # type: ignore[index,union-attr]


async def test_the_agent_finds_what_was_said_in_another_session(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    claw_env.server.script(
        text("Noted."), tool_call("sessions_search", {"query": "locker code"}), text("It was 4711.")
    )
    await _turn(client, "my locker code is 4711", "agent:main:old")
    await _turn(client, "what was my locker code?", "agent:main:main")
    asked = claw_env.server.chat_requests[1].body
    assert "sessions_search" in _tool_names(asked)
    result = json.loads(claw_env.server.chat_requests[2].body["messages"][-1]["content"])
    hits = [r for r in result["results"] if r["sessionKey"] == "agent:main:old"]
    assert hits and hits[0]["snippet"] == "my [locker] [code] is 4711" and hits[0]["role"] == "user"


async def test_channel_sessions_do_not_get_it_unless_the_agent_allows_all(claw_env: ClawEnv) -> None:
    claw_env.server.script(text("a"), text("b"), tool_call("sessions_search", {"query": "x"}), text("c"))
    paths = Paths.from_env()
    client = LocalClient(build_gateway(paths, load_config(paths)), channel="telegram")
    try:
        await _turn(client, "hi from a group", "agent:main:telegram:group:1")
    finally:
        await client.close()
    assert "sessions_search" not in _tool_names(claw_env.server.chat_requests[-1].body)

    (claw_env.home / "config.toml").write_text('[agents.defaults.tools.sessions]\nsearch = "all"\n')
    client = LocalClient(build_gateway(paths, load_config(paths)), channel="telegram")
    try:
        await _turn(client, "again", "agent:main:telegram:group:1")
        assert "sessions_search" in _tool_names(claw_env.server.chat_requests[-1].body)
    finally:
        await client.close()

    (claw_env.home / "config.toml").write_text('[agents.defaults.tools.sessions]\nsearch = "off"\n')
    client = LocalClient(build_gateway(paths, load_config(paths)))
    try:
        await _turn(client, "from the cli", "agent:main:main")  # the model calls it anyway: refused
        assert "sessions_search" not in _tool_names(claw_env.server.chat_requests[-2].body)
        refusal = claw_env.server.chat_requests[-1].body["messages"][-1]["content"]
        assert "not available here" in refusal and "tools.sessions.search" in refusal
    finally:
        await client.close()
