"""Compaction by size, after a context-overflow error, on demand, and for history larger than the window."""

from __future__ import annotations

from claw.agent.history import to_message
from claw.agent.tokens import estimate_message
from tests.compaction.conftest import (
    KEY,
    Model,
    assert_tool_pairs_whole,
    config,
    filler_turns,
    lifecycle,
    seed,
    tool_exchange,
    transcript_entries,
    write_config,
)
from tests.gateway.conftest import collect, phases
from tests.support.fixtures import ClawEnv
from tests.support.model_server import overflow, text

SUMMARY_PREFIX = "[Summary of the earlier conversation]\n"


async def test_size_threshold_compacts_and_keeps_the_tool_pair_whole(claw_env: ClawEnv, make_client) -> None:
    exchange = tool_exchange("call_big", result_chars=2600)
    history = filler_turns(30) + exchange
    question = "and now the final question?"
    # Keep room for the new message, "done reading" and the tool *result*, but not for its call too:
    # a cut between messages would split the pair; the cut between units must summarise both.
    call, result, done = (estimate_message(to_message(e)) for e in exchange[1:])
    newest = estimate_message({"role": "user", "content": question}) + done
    keep = newest + result + call // 2
    assert newest + result <= keep < newest + result + call
    write_config(claw_env, config(8000, reserve=1000, keep=keep))
    seeded = seed(claw_env, history)
    model = Model(window=8000, replies=[text("Here is the answer.")])
    claw_env.server.default = model
    client = make_client()
    events = await collect(client, (await client.run(question)).run_id)

    assert phases(events)[-1] == "end" and events[-1].data["text"] == "Here is the answer."
    start, end = lifecycle(events, "compaction")
    assert start["state"] == "start" and start["reason"] == "threshold" and start["tokensBefore"] > 7000
    assert end["state"] == "end" and end["tokensAfter"] < 7000 and end["firstKeptId"]
    assert model.overflows == 0 and len(model.summaries) >= 1

    entries = transcript_entries(claw_env)
    compaction = [e for e in entries if e.get("type") == "compaction"]
    assert len(compaction) == 1 and compaction[0]["reason"] == "threshold"
    kept_id = compaction[0]["firstKeptId"]
    assert kept_id == end["firstKeptId"]
    kept = next(e for e in entries if e.get("id") == kept_id)
    assert kept["content"] == "done reading"  # the first unit after the tool pair
    assert compaction[0]["summary"].startswith(f"SUMMARY {len(model.summaries)}:")
    # Every seeded entry is still in the transcript: compaction only appends.
    assert [e["id"] for e in entries[: len(seeded)]] == [e["id"] for e in seeded]

    request = model.turns[-1].messages
    assert request[1]["content"].startswith(SUMMARY_PREFIX + "SUMMARY")
    assert [m["content"] for m in request[2:]] == ["done reading", question]
    assert_tool_pairs_whole(request)
    summarised = "\n".join(m["content"] for r in model.summaries for m in r.messages)
    assert "[assistant calls read]" in summarised and "RESULT-START" in summarised
    for summary_request in model.summaries:
        assert summary_request.tools == []


async def test_overflow_error_compacts_and_retries_once(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, config(100_000, reserve=1000, keep=300))
    seed(claw_env, filler_turns(6) + tool_exchange("call_1", result_chars=800))
    claw_env.server.script(overflow())
    model = Model(window=100_000, replies=[text("Recovered.")])
    claw_env.server.default = model
    client = make_client()
    events = await collect(client, (await client.run("what now?")).run_id)

    assert events[-1].data == {"phase": "end", "text": "Recovered.", "usage": events[-1].data["usage"]}
    start, end = lifecycle(events, "compaction")
    assert start["reason"] == "overflow" and end["reason"] == "overflow"
    assert len(model.summaries) == 1 and len(model.turns) == 1
    retried = model.turns[0].messages
    assert retried[1]["content"].startswith(SUMMARY_PREFIX)
    assert_tool_pairs_whole(retried)
    assert retried[-1]["content"] == "what now?"
    entries = transcript_entries(claw_env)
    assert [e["reason"] for e in entries if e.get("type") == "compaction"] == ["overflow"]
    assert [e["content"] for e in entries if e.get("role") == "assistant"][-1] == "Recovered."


async def test_a_second_overflow_fails_the_turn(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, config(100_000, reserve=1000, keep=300))
    seed(claw_env, filler_turns(6))
    model = Model(window=100_000)
    claw_env.server.default = model
    claw_env.server.script(overflow(), lambda r: model(r), overflow())
    client = make_client()
    events = await collect(client, (await client.run("what now?")).run_id)
    assert phases(events)[-1] == "error" and "maximum context length" in events[-1].data["message"]
    assert len(lifecycle(events, "compaction")) == 2  # one compaction (start + end), no second attempt
    assert len([e for e in transcript_entries(claw_env) if e.get("type") == "compaction"]) == 1


async def test_history_larger_than_the_window_is_summarised_in_chunks(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, config(8000, reserve=1000, keep=500))
    seed(claw_env, filler_turns(60, chars=1000) + tool_exchange("call_x", result_chars=3000))
    model = Model(window=8000, replies=[text("Fits now.")])
    claw_env.server.default = model
    client = make_client()
    events = await collect(client, (await client.run("summarise everything")).run_id)

    assert events[-1].data["text"] == "Fits now."
    assert model.overflows == 0
    assert len(model.summaries) >= 5  # ~30,000 tokens of history through an 8,000-token window
    for later in model.summaries[1:]:
        assert "Summary of the conversation so far:\nSUMMARY" in later.messages[1]["content"]
    entry = next(e for e in transcript_entries(claw_env) if e.get("type") == "compaction")
    assert entry["summary"] == f"SUMMARY {len(model.summaries)}: the user and assistant talked about filler topics."
    assert entry["tokensBefore"] > 30_000 > 7000 > entry["tokensAfter"]


async def test_compact_command_with_focus_and_rpc(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, config(100_000, reserve=1000, keep=400))
    seed(claw_env, filler_turns(10))
    model = Model(window=100_000)
    claw_env.server.default = model
    client = make_client()

    handle = await client.run("/compact the decisions about the ledger")
    assert handle.status == "command" and handle.reply.startswith(f"Compacted {KEY}: ")
    assert "older history parts summarised" in handle.reply and "→" in handle.reply
    assert "the decisions about the ledger" in model.summaries[0].messages[1]["content"]
    entry = [e for e in transcript_entries(claw_env) if e.get("type") == "compaction"][-1]
    assert entry["focus"] == "the decisions about the ledger" and entry["reason"] == "manual"

    again = await client.call("sessions.compact", key=KEY)  # OpenClaw's name for the session
    assert again == {"ok": True, "key": KEY, "sessionKey": KEY, "compacted": False}  # within keepRecentTokens

    seed(claw_env, filler_turns(10))
    done = await client.call("sessions.compact", focus="names")
    assert done["compacted"] is True and done["summary"].startswith("SUMMARY")
    assert done["tokensAfter"] < done["tokensBefore"]
    # the second summary re-distils the first one instead of copying it
    assert "Summary of the conversation so far:\nSUMMARY 1" in model.summaries[-1].messages[1]["content"]
    status = await client.call("sessions.get")
    assert status["entry"]["extra"]["compactionCount"] == 2


async def test_compact_on_an_empty_session_and_without_a_model(claw_env: ClawEnv, make_client, monkeypatch) -> None:
    client = make_client()
    reply = (await client.run("/compact")).reply
    assert reply == "Nothing to compact: the history is within what compaction keeps verbatim."
    assert claw_env.server.chat_requests == []
