"""Memory inside a real gateway: the tools as the model calls them, per-turn recall, and the RPC methods."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from claw.agent.tokens import estimate_text
from claw.client.local import LocalClient
from claw.memory.recall import RECALL_HEADING
from tests.gateway.conftest import collect
from tests.memory.conftest import section, write_config
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call

MakeClient = Callable[[], LocalClient]


def _results(events, name: str) -> list[dict]:
    return [e.data for e in events if e.stream == "tool" and e.data["phase"] == "result" and e.data["name"] == name]


async def test_memory_search_tool_returns_ranked_json(claw_env: ClawEnv, make_client: MakeClient) -> None:
    claw_env.server.script(tool_call("memory_search", {"query": "dentist appointment", "maxResults": 2}), text("9:30"))
    client = make_client()
    handle = await client.run("when do I see the dentist?")
    events = await collect(client, handle.run_id)
    result = _results(events, "memory_search")[0]
    assert result["isError"] is False
    payload = json.loads(result["result"])
    assert payload["mode"] == "keyword" and "no embeddings configured" in payload["note"]
    first = payload["results"][0]
    assert first["path"] == "memory/2025-02-10.md" and first["startLine"] == 1 and first["endLine"] == 2
    assert "wisdom tooth" in first["snippet"] and 0 < first["score"] <= 1
    assert len(payload["results"]) <= 2
    assert "memory_search" in claw_env.server.chat_requests[0].tool_names


async def test_memory_get_reads_memory_files_only(claw_env: ClawEnv, make_client: MakeClient, corpus: Path) -> None:
    (corpus / "notes.md").write_text("not a memory\n", encoding="utf-8")
    (corpus / "memory" / "sneaky.md").symlink_to(corpus / "notes.md")
    claw_env.server.script(
        tool_call("memory_get", {"path": "memory/2025-01-05.md", "from": 2, "lines": 1}),
        tool_call("memory_get", {"path": "notes.md"}),
        tool_call("memory_get", {"path": "memory/../notes.md"}),
        tool_call("memory_get", {"path": "memory/sneaky.md"}),
        tool_call("memory_get", {"path": "MEMORY.md", "from": 500}),
        text("done"),
    )
    client = make_client()
    events = await collect(client, (await client.run("look")).run_id)
    ok, outside, dotdot, symlink, beyond = _results(events, "memory_get")
    body = json.loads(ok["result"])
    assert body == {"path": "memory/2025-01-05.md", "from": 2, "text": FILE_LINE_2}
    for refused in (outside, dotdot, symlink, beyond):
        assert refused["isError"] is True
    assert "reads only MEMORY.md" in outside["result"] and "not a memory file" in symlink["result"]
    assert "beyond the end" in beyond["result"]


FILE_LINE_2 = "- Home server: the NAS runs Debian; nightly backups go to Backblaze B2 with restic."


async def test_recall_puts_matching_memories_into_the_prompt(claw_env: ClawEnv, make_client: MakeClient) -> None:
    claw_env.server.script(text("It is on 3 March."))
    client = make_client()
    await collect(client, (await client.run("remind me about the dentist appointment")).run_id)
    system = claw_env.server.chat_requests[0].messages[0]["content"]
    memory = section(system, "## Memory Recall")
    assert "run memory_search" in memory
    assert RECALL_HEADING in memory and "memory/2025-02-10.md#L1-L2" in memory and "wisdom tooth" in memory
    assert "sourdough" not in memory  # only what matches, never whole daily files


async def test_recall_stays_within_its_token_budget(claw_env: ClawEnv, make_client: MakeClient, corpus: Path) -> None:
    for n in range(30):
        lines = [f"- budget meeting {n}.{i}: quarterly budget figures, budget owners, budget risks" for i in range(40)]
        (corpus / "memory" / f"2024-06-{n + 1:02d}.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    write_config(claw_env, "[memory]\nrecallTokens = 500\nrecallMaxResults = 20\nminScore = 0\n")
    claw_env.server.script(text("ok"))
    client = make_client()
    await collect(client, (await client.run("what about the budget?")).run_id)
    memory = section(claw_env.server.chat_requests[0].messages[0]["content"], "## Memory Recall")
    recalled = memory[memory.index(RECALL_HEADING) :]
    assert recalled.count("#L") >= 2 and recalled.rstrip().endswith("…")  # the last hit was cut to fit
    assert estimate_text(recalled) <= 500


async def test_no_recall_block_when_nothing_matches(claw_env: ClawEnv, make_client: MakeClient) -> None:
    claw_env.server.script(text("hi"))
    client = make_client()
    await collect(client, (await client.run("zzyzx qwertyuiop")).run_id)
    memory = section(claw_env.server.chat_requests[0].messages[0]["content"], "## Memory Recall")
    assert RECALL_HEADING not in memory and "run memory_search" in memory


async def test_memory_disabled_removes_tools_and_section(claw_env: ClawEnv, make_client: MakeClient) -> None:
    write_config(claw_env, "[memory]\nenabled = false\n")
    claw_env.server.script(text("hi"))
    client = make_client()
    await collect(client, (await client.run("the dentist")).run_id)
    request = claw_env.server.chat_requests[0]
    assert "memory_search" not in request.tool_names and "Memory Recall" not in request.messages[0]["content"]


async def test_rpc_methods(claw_env: ClawEnv, make_client: MakeClient) -> None:
    client = make_client()
    found = await client.call("memory.search", query="etcd rollback", explain=True)
    assert found["mode"] == "keyword" and found["results"][0]["path"] == "memory/2025-03-12.md"
    assert {"textScore", "bm25", "vectorScore"} <= set(found["results"][0])
    status = await client.call("memory.status")
    assert status["files"] == 13 and status["embeddings"]["enabled"] is False
    indexed = await client.call("memory.index", force=True)
    assert indexed["rebuilt"] is True and indexed["status"]["chunks"] >= 13
    got = await client.call("memory.get", path="MEMORY.md", **{"from": 4, "lines": 1})
    assert got["text"].startswith("<!--")
