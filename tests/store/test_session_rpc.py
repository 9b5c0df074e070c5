"""`sessions.search|fork|undo|export|reindex` through a real in-process gateway and the scripted model."""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser

import pytest

from claw.client.local import LocalClient
from claw.errors import UsageError
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call

MAIN = "agent:main:main"


async def _turn(client: LocalClient, message: str, session: str = MAIN) -> str:
    handle = await client.run(message, session_key=session)
    phase = ""
    async for event in client.events(handle.run_id):
        if event.is_terminal:
            phase = event.data["phase"]
    return phase


def _said(messages: list[dict[str, object]]) -> list[object]:
    return [m["content"] for m in messages if m["role"] in ("user", "assistant")]


async def test_undo_then_a_new_message_sends_the_history_without_the_undone_exchange(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    claw_env.server.script(text("one"), text("two"), text("three"))
    assert await _turn(client, "first") == "end"
    assert await _turn(client, "second, a mistake") == "end"
    undone = await client.call("sessions.undo", sessionKey=MAIN)
    assert undone["undone"] == 2
    assert await _turn(client, "third") == "end"
    assert _said(claw_env.server.chat_requests[-1].body["messages"]) == ["first", "one", "third"]
    history = await client.call("chat.history", sessionKey=MAIN, limit=0)
    assert "second, a mistake" in [e.get("content") for e in history["messages"]]  # kept in the transcript


async def test_search_finds_words_across_sessions_and_after_a_reset(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    claw_env.server.script(text("noted"), text("ok"), text("ok"), text("ok"))
    await _turn(client, "my locker code is tangerine", "agent:main:a")
    await _turn(client, "nothing here", "agent:main:b")
    await _turn(client, "or here", "agent:main:c")
    await client.call("sessions.reset", sessionKey="agent:main:a")
    found = await client.call("sessions.search", query="tangerine")
    assert [(r["sessionKey"], r["archived"], r["role"]) for r in found["results"]] == [("agent:main:a", True, "user")]
    hit = found["results"][0]
    assert hit["snippet"][slice(*hit["highlights"][0])] == "tangerine"
    again = await local_clients().call("sessions.reindex")  # a second gateway on the same state
    assert again["messages"] == 6
    assert (await client.call("sessions.search", query="tangerine"))["results"] == found["results"]
    with pytest.raises(UsageError, match="query"):
        await client.call("sessions.search", query="")


async def test_fork_over_rpc_and_its_lineage_in_the_list(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    claw_env.server.script(text("a1"), text("a2"), text("b2"))
    await _turn(client, "q1")
    await _turn(client, "q2")
    row = await client.call("sessions.fork", sessionKey=MAIN, at=2, newKey="branch")
    assert row["key"] == "agent:main:branch" and row["messages"] == 2 and row["forkedAt"] == 2
    await _turn(client, "q2 differently", "agent:main:branch")
    assert _said(claw_env.server.chat_requests[-1].body["messages"]) == ["q1", "a1", "q2 differently"]
    rows = {r["key"]: r for r in (await client.call("sessions.list"))["sessions"]}
    assert rows["agent:main:branch"]["forkedFrom"] == MAIN and rows[MAIN]["messages"] == 4


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.summaries: list[str] = []
        self.external: list[str] = []
        self._in_summary = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_summary = tag == "summary"
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.external.append(value)

    def handle_data(self, data: str) -> None:
        if self._in_summary:
            self.summaries.append(data)
            self._in_summary = False


async def test_html_export_holds_every_tool_call_and_fetches_nothing(
    claw_env: ClawEnv, local_clients: Callable[[], LocalClient]
) -> None:
    client = local_clients()
    claw_env.server.script(
        tool_call("read", {"path": "SOUL.md"}), tool_call("read", {"path": "<b>AGENTS.md</b>"}), text("done & <ok>")
    )
    await _turn(client, "read <two> files")
    page = (await client.call("sessions.export", sessionKey=MAIN, format="html"))["text"]
    parser = _Page()
    parser.feed(page)
    calls = [s for s in parser.summaries if s.startswith("Tool call: read")]
    results = [s for s in parser.summaries if s.startswith(("Tool result: read", "Tool error: read"))]
    assert len(calls) == 2 and len(results) == 2
    assert parser.external == [] and "<b>AGENTS.md" not in page and "&lt;two&gt;" in page
    lines = (await client.call("sessions.export", sessionKey=MAIN, format="jsonl"))["text"].splitlines()
    assert len(lines) == len((await client.call("chat.history", sessionKey=MAIN, limit=0))["messages"])
