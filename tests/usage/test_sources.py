"""Each kind of model call gets its source: an automation's run (with its job id), a subagent's run, the memory
flush, a compaction, a channel's message; the parent's own calls stay `chat`."""

from __future__ import annotations

from claw.vocab.msg_context import MsgContext
from tests.compaction.conftest import Model, config, filler_turns, seed
from tests.compaction.conftest import write_config as write_compaction_config
from tests.subagents.conftest import Roles, settle
from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, text, tool_call
from tests.usage.conftest import KEY, collect, ledger_of, rows, turn


async def test_an_automation_run_is_recorded_with_its_job(claw_env: ClawEnv, make_client) -> None:
    claw_env.server.script(text("digest ready", usage=Usage(40, 4)))
    client = make_client()
    job = await client.call("automations.add", every="1h", message="write the digest", name="digest")
    run = await client.call("automations.run", id="digest", wait=True)
    assert run["status"] == "ok", run
    assert ledger_of(client).ledger.flush()
    (row,) = rows(claw_env)
    assert (row["source"], row["job_id"], row["channel"]) == ("automation", job["id"], None)
    assert row["session_key"] == f"agent:main:cron:{job['id']}" and row["input_tokens"] == 40
    by_run = await client.call("usage.summary", by="run", jobId=job["id"])  # `claw usage --by run --job ID`
    assert [(g["key"], g["calls"], g["inputTokens"]) for g in by_run["groups"]] == [(run["runId"], 1, 40)]


async def test_a_subagents_calls_are_its_own_and_the_parents_stay_chat(claw_env: ClawEnv, make_client) -> None:
    claw_env.server.default = Roles(
        parent=[tool_call("sessions_spawn", {"task": "Say hi."}), text("Started.")],
        child=[text("hi")],
        announce=[text("It said hi.")],
    )
    client = make_client()
    handle = await client.run("delegate")
    await collect(client, handle.run_id)
    await settle(client, handle.run_id)
    assert ledger_of(client).ledger.flush()
    found = rows(claw_env)
    subagent = [r for r in found if r["source"] == "subagent"]
    assert len(subagent) == 1 and ":subagent:" in subagent[0]["session_key"]
    assert subagent[0]["run_id"] != handle.run_id
    parent = [r for r in found if r["run_id"] == handle.run_id]
    assert len(parent) == 2 and {r["source"] for r in parent} == {"chat"}


async def test_memory_flush_and_compaction_are_sources_of_their_own(claw_env: ClawEnv, make_client) -> None:
    write_compaction_config(claw_env, config(12_000, reserve=1000, keep=600, flush=True, soft=6000))
    seed(claw_env, filler_turns(12))
    model = Model(window=12_000, flush_replies=["- a note"])
    claw_env.server.default = model
    client = make_client()
    events = await turn(client, "first " + "w" * 3000)  # crosses the flush threshold
    assert events[-1].data["phase"] == "end" and len(model.flushes) == 1
    compacted = await client.run("/compact")
    assert compacted.status == "command", compacted
    assert ledger_of(client).ledger.flush()
    by_source = {}
    for row in rows(claw_env):
        by_source.setdefault(row["source"], []).append(row)
    assert set(by_source) == {"chat", "memory_flush", "compaction"}
    assert len(by_source["memory_flush"]) == 1 and len(by_source["chat"]) == 1
    assert by_source["memory_flush"][0]["run_id"] == by_source["chat"][0]["run_id"]  # inside the turn's run
    assert len(by_source["compaction"]) == len(model.summaries) >= 1
    compaction = by_source["compaction"][0]
    assert (compaction["agent_id"], compaction["session_key"], compaction["run_id"]) == ("main", KEY, None)


async def test_a_channels_message_is_source_channel(claw_env: ClawEnv, make_client) -> None:
    claw_env.server.script(text("hello telegram"))
    client = make_client()
    ctx = MsgContext(body="hi", channel="telegram", peer_id="42", sender_id="42")
    result = await client.gateway.dispatch(ctx)
    await collect(client, result.run_id)
    assert ledger_of(client).ledger.flush()
    (row,) = rows(claw_env)
    assert (row["source"], row["channel"]) == ("channel", "telegram")
