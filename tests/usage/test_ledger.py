"""Every model call becomes one ledger row as it completes: tokens as reported (cache and reasoning details),
estimated when the server reports none, failed and aborted calls too, with who the call was for."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, error, hang, text, tool_calls
from tests.usage.conftest import DETAILED, KEY, collect, ledger_of, rows, turn, write_config


async def test_a_turn_with_a_tool_round_writes_one_row_per_model_call(claw_env: ClawEnv, make_client) -> None:
    claw_env.server.script(
        tool_calls([("read", {"path": "SOUL.md"})], usage=DETAILED),
        text("Done reading.", usage=Usage(1200, 10, cached_tokens=1000)),
    )
    client = make_client()
    handle = await client.run("read your soul")
    events = await collect(client, handle.run_id)
    assert events[-1].data["phase"] == "end"
    assert ledger_of(client).ledger.flush()

    first, second = rows(claw_env)
    for row in (first, second):
        assert (row["agent_id"], row["session_key"], row["run_id"]) == ("main", KEY, handle.run_id)
        assert (row["source"], row["channel"], row["job_id"]) == ("chat", "cli", None)
        assert (row["provider"], row["model"], row["status"], row["estimated"]) == ("openai", "test-model", "ok", 0)
        assert row["first_token_ms"] is not None and row["total_ms"] >= row["first_token_ms"] > 0
    assert (first["input_tokens"], first["output_tokens"]) == (1000, 50)
    assert (first["cached_input_tokens"], first["cache_write_tokens"], first["reasoning_tokens"]) == (600, 100, 20)
    assert (second["input_tokens"], second["cached_input_tokens"], second["cache_write_tokens"]) == (1200, 1000, 0)
    assert first["ts"] <= second["ts"]
    # The turn's end event still sums the same calls.
    assert events[-1].data["usage"] == {"input": 2200, "output": 60}


async def test_a_server_that_reports_no_usage_gives_an_estimated_row(claw_env: ClawEnv, make_client) -> None:
    claw_env.server.script(replace(text("a reply of some forty characters, or so."), report_usage=False))
    client = make_client()
    await turn(client, "hello")
    assert ledger_of(client).ledger.flush()
    (row,) = rows(claw_env)
    assert row["estimated"] == 1 and row["status"] == "ok"
    assert row["output_tokens"] == 10  # 40 characters, four a token
    assert row["input_tokens"] > 0 and row["cached_input_tokens"] == 0


async def test_a_failed_call_is_a_row_with_its_error_and_no_tokens(claw_env: ClawEnv, make_client) -> None:
    claw_env.server.script(error(400, "bad thing"))
    client = make_client()
    events = await turn(client, "hello")
    assert events[-1].data["phase"] == "error"
    assert ledger_of(client).ledger.flush()
    (row,) = rows(claw_env)
    assert row["status"] == "error" and "bad thing" in row["error"]
    assert (row["input_tokens"], row["output_tokens"], row["estimated"]) == (0, 0, 0)
    assert row["first_token_ms"] is None


async def test_an_aborted_call_is_recorded_with_what_streamed(claw_env: ClawEnv, make_client) -> None:
    claw_env.server.script(hang("twelve chars then nothing"))
    client = make_client()
    handle = await client.run("talk")
    async for event in client.events(handle.run_id):
        if event.stream == "assistant":
            client.gateway.abort(handle.run_id)
        if event.is_terminal:
            assert event.data["phase"] == "aborted"
            break
    assert ledger_of(client).ledger.flush()
    (row,) = rows(claw_env)
    assert row["status"] == "aborted" and row["estimated"] == 1
    assert row["output_tokens"] > 0 and row["first_token_ms"] is not None


async def test_usage_calls_method_lists_a_runs_rows(claw_env: ClawEnv, make_client) -> None:
    claw_env.server.script(text("one", usage=Usage(10, 1)))
    client = make_client()
    handle = await client.run("hi")
    await collect(client, handle.run_id)
    listed = await client.call("usage.calls", runId=handle.run_id)
    assert [(r["input_tokens"], r["output_tokens"], r["source"]) for r in listed] == [(10, 1, "chat")]


async def test_each_candidate_of_a_failover_is_a_call_of_its_own(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, '[agents.defaults.model]\nfallbacks = ["openai/backup-model"]\n')
    claw_env.server.script(error(503, "overloaded"), text("from the backup", usage=Usage(30, 3)))
    client = make_client()
    events = await turn(client, "hello")
    assert events[-1].data["phase"] == "end"
    assert ledger_of(client).ledger.flush()
    failed, answered = rows(claw_env)
    assert (failed["model"], failed["status"], failed["input_tokens"]) == ("test-model", "error", 0)
    assert "overloaded" in failed["error"]
    assert (answered["model"], answered["status"], answered["input_tokens"]) == ("backup-model", "ok", 30)
    assert failed["run_id"] == answered["run_id"]


def test_a_bad_price_names_its_key_where_the_file_has_it(claw_env: ClawEnv) -> None:
    from claw.config import load_config
    from claw.errors import ConfigError
    from claw.paths import Paths

    write_config(claw_env, '[models.prices."openai/gpt-4o"]\ninput = -1\noutput = 1\n')
    with pytest.raises(ConfigError, match=r'models\.prices\."openai/gpt-4o"\.input: Input should be greater'):
        load_config(Paths.from_env())
