"""The `usage.*` methods answer the same through the in-process client and over the gateway's WebSocket,
so a remote console or a script sees the numbers `claw usage` and `/cost` show."""

from __future__ import annotations

import pytest

from claw.client.protocol import GatewayClient
from claw.errors import ClawError
from tests.server.conftest import any_client, home, make_served, served  # noqa: F401 - fixtures
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text
from tests.usage.conftest import DETAILED, KEY


async def test_usage_methods_through_either_client(claw_env: ClawEnv, any_client: GatewayClient) -> None:  # noqa: F811
    claw_env.server.script(text("hi", usage=DETAILED))
    handle = await any_client.run("hello")
    events = [event async for event in any_client.events(handle.run_id)]
    assert events[-1].data["phase"] == "end"
    summary = await any_client.call("usage.summary", by="source", since="1d")
    (chat,) = summary["groups"]
    assert (chat["key"], chat["calls"], chat["inputTokens"], chat["cachedInputTokens"]) == ("chat", 1, 1000, 600)
    assert (chat["cacheWriteTokens"], chat["reasoningTokens"], chat["estimatedCalls"]) == (100, 20, 0)
    assert summary["total"]["cost"] == 0.0  # the scripted server is on 127.0.0.1: a local server, free
    cost = await any_client.call("usage.cost", sessionKey=KEY)
    assert cost["session"]["calls"] == cost["today"]["calls"] == cost["month"]["calls"] == 1
    (row,) = await any_client.call("usage.calls", runId=handle.run_id)
    assert row["source"] == "chat" and row["local"] == 1 and row["cost_at_call"] == 0.0
    with pytest.raises(ClawError, match="unknown grouping 'week'"):
        await any_client.call("usage.summary", by="week")
