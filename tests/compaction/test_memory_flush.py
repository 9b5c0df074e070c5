"""The memory flush: a silent turn near the limit writes memory/YYYY-MM-DD.md, at most once per cycle."""

from __future__ import annotations

from datetime import datetime

from tests.compaction.conftest import (
    FLUSH_MARK,
    Model,
    config,
    filler_turns,
    lifecycle,
    seed,
    transcript_entries,
    write_config,
)
from tests.gateway.conftest import collect, text_of
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text


async def test_flush_writes_the_daily_note_once_per_compaction_cycle(claw_env: ClawEnv, make_client) -> None:
    # Window 12,000, reserve 1,000: compaction past 11,000, the flush past 11,000 - 6,000 = 5,000.
    write_config(claw_env, config(12_000, reserve=1000, keep=600, flush=True, soft=6000))
    seed(claw_env, filler_turns(12))  # ~2,600 tokens of history, plus ~2,000 of system prompt and tools
    model = Model(window=12_000, flush_replies=["- Decided: Postgres for the ledger.", "- Alex moves in May."])
    claw_env.server.default = model
    client = make_client()
    note = claw_env.home / "workspace" / "memory" / f"{datetime.now():%Y-%m-%d}.md"

    events = await collect(client, (await client.run("first " + "w" * 3000)).run_id)  # crosses 5,000
    assert len(model.flushes) == 1 and len(model.turns) == 1
    start, end = lifecycle(events, "memory_flush")
    assert start["state"] == "start" and end == {
        "phase": "memory_flush",
        "state": "end",
        "wrote": f"memory/{note.name}",
        "error": None,
    }
    content = note.read_text(encoding="utf-8")
    assert content.startswith(f"# {note.stem}\n") and "- Decided: Postgres for the ledger." in content
    assert content.count("notes kept before compaction") == 1
    # Silent: not shown to the user, not in the transcript, not in the next prompt.
    assert "Postgres" not in text_of(events) and events[-1].data["text"] == "ok"
    assert not any("Postgres" in str(e.get("content")) for e in transcript_entries(claw_env))
    assert not any(FLUSH_MARK in str(e.get("content")) for e in transcript_entries(claw_env))
    flush_request = model.flushes[0].messages
    assert flush_request[-1]["role"] == "user" and f"memory/{note.name}" in flush_request[-1]["content"]
    assert flush_request[-2]["content"].startswith("first ")  # the conversation so far, then the request

    await collect(client, (await client.run("second, still near the limit")).run_id)
    assert len(model.flushes) == 1  # once per cycle

    reply = (await client.run("/compact")).reply
    assert reply.startswith("Compacted")  # a new cycle begins
    await collect(client, (await client.run("third " + "w" * 14_000)).run_id)  # back over 5,000
    assert len(model.flushes) == 2
    content = note.read_text(encoding="utf-8")
    assert content.count("notes kept before compaction") == 2 and "- Alex moves in May." in content
    await collect(client, (await client.run("fourth")).run_id)
    assert len(model.flushes) == 2
    entry = await client.call("sessions.get")
    assert entry["entry"]["extra"]["memoryFlushCompactionCount"] == 1
    assert entry["entry"]["extra"]["compactionCount"] == 1


async def test_no_reply_writes_nothing_and_disabled_flush_never_runs(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, config(12_000, reserve=1000, keep=600, flush=True, soft=6000))
    seed(claw_env, filler_turns(12))
    model = Model(window=12_000, flush_replies=["NO_REPLY"])
    claw_env.server.default = model
    client = make_client()
    events = await collect(client, (await client.run("first " + "w" * 3000)).run_id)
    assert len(model.flushes) == 1 and lifecycle(events, "memory_flush")[-1]["wrote"] is None
    assert not (claw_env.home / "workspace" / "memory").exists()

    write_config(claw_env, config(12_000, reserve=1000, keep=600, flush=False, soft=6000))
    seed(claw_env, filler_turns(1), key="agent:main:other")
    other = make_client()
    await collect(other, (await other.run("x " + "w" * 20_000, session_key="other")).run_id)
    assert len(model.flushes) == 1


async def test_flush_can_use_file_tools_silently(claw_env: ClawEnv, make_client) -> None:
    from tests.support.model_server import tool_call

    write_config(claw_env, config(12_000, reserve=1000, keep=600, flush=True, soft=6000))
    seed(claw_env, filler_turns(12))
    model = Model(window=12_000)
    claw_env.server.default = model
    (claw_env.home / "workspace" / "MEMORY.md").write_text("# Memory\n", encoding="utf-8")
    claw_env.server.script(
        tool_call("edit", {"path": "MEMORY.md", "oldText": "# Memory\n", "newText": "# Memory\n- likes tea\n"}),
        text("NO_REPLY"),
    )
    events = await collect(client := make_client(), (await client.run("first " + "w" * 3000)).run_id)
    assert "likes tea" in (claw_env.home / "workspace" / "MEMORY.md").read_text(encoding="utf-8")
    assert not [e for e in events if e.stream == "tool"]  # silent
    assert len(model.turns) == 1


async def test_a_planted_link_as_the_daily_note_is_neither_read_nor_written_through(
    claw_env: ClawEnv, make_client, tmp_path
) -> None:
    """The agent made today's note a link to a file outside: the flush must not copy that file into the
    workspace (where the model would read it) nor write its notes through the link."""
    write_config(claw_env, config(12_000, reserve=1000, keep=600, flush=True, soft=6000))
    seed(claw_env, filler_turns(12))
    model = Model(window=12_000, flush_replies=["- Decided: Postgres for the ledger."])
    claw_env.server.default = model
    client = make_client()
    secret = tmp_path / "outside" / "id_rsa"
    secret.parent.mkdir()
    secret.write_text("SECRET-KEY-0042\n", encoding="utf-8")
    memory = claw_env.home / "workspace" / "memory"
    memory.mkdir(parents=True, exist_ok=True)
    (memory / f"{datetime.now():%Y-%m-%d}.md").symlink_to(secret)

    events = await collect(client, (await client.run("first " + "w" * 3000)).run_id)
    assert len(model.flushes) == 1
    _start, end = lifecycle(events, "memory_flush")
    assert end["wrote"] is None
    assert secret.read_text(encoding="utf-8") == "SECRET-KEY-0042\n"
    for path in (claw_env.home / "workspace").rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert "SECRET-KEY-0042" not in path.read_text(encoding="utf-8", errors="replace"), path
