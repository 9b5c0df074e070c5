"""`claw usage` and `claw usage prune` as real subprocesses over the rows real `claw agent` turns wrote,
and `/cost` in a session."""

from __future__ import annotations

import json
from datetime import date, timedelta

from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, text, tool_call
from tests.support.processes import run_claw
from tests.usage.conftest import DETAILED, rows, write_config


def test_usage_views_totals_and_prune_in_the_terminal(claw_env: ClawEnv) -> None:
    (claw_env.home / "workspace").mkdir()
    write_config(claw_env, '[models.prices."openai/test-model"]\ninput = 2.0\noutput = 8.0\ncachedInput = 0.5\n')
    claw_env.server.script(
        tool_call("read", {"path": "SOUL.md"}),  # the server estimates its usage, but reports it
        text("Done.", usage=DETAILED),
        text("Again.", usage=Usage(500, 40)),
    )
    assert run_claw(claw_env.env, "agent", "-m", "read your soul").returncode == 0
    assert run_claw(claw_env.env, "agent", "-m", "again").returncode == 0
    written = rows(claw_env)
    assert len(written) == 3 and {r["source"] for r in written} == {"chat"}

    by_source = run_claw(claw_env.env, "usage", "--by", "source", "--json")
    assert by_source.returncode == 0, by_source.stderr
    report = json.loads(by_source.stdout)
    (chat,) = report["groups"]
    assert chat["key"] == "chat" and chat["calls"] == 3
    assert chat["inputTokens"] == sum(r["input_tokens"] for r in written)
    assert chat["cachedInputTokens"] == 600 and chat["reasoningTokens"] == 20
    expected = sum(
        ((r["input_tokens"] - r["cached_input_tokens"]) * 2.0 + r["cached_input_tokens"] * 0.5
         + r["output_tokens"] * 8.0) / 1e6 for r in written
    )  # fmt: skip
    assert abs(report["total"]["cost"] - expected) < 1e-9

    table = run_claw(claw_env.env, "usage", "--by", "model", "--since", "7d")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split()[1:] == ["calls", "input", "cached", "output", "cost"]
    assert lines[1].split()[0] == "openai/test-model" and lines[2].split()[0] == "total"
    assert f"${expected:.4f}" in lines[2]

    bad = run_claw(claw_env.env, "usage", "--by", "week")
    assert (
        bad.returncode == 2
        and bad.stderr.strip() == "claw: --by 'week': use one of day, model, agent, session, job, source, run"
    )

    tomorrow = (date.today() + timedelta(days=1)).isoformat()
    pruned = run_claw(claw_env.env, "usage", "prune", "--before", tomorrow)
    assert pruned.returncode == 0 and pruned.stdout.strip() == f"Deleted 3 usage row(s) of calls before {tomorrow}."
    assert rows(claw_env) == []
    assert run_claw(claw_env.env, "usage").stdout.strip() == "No model calls recorded yet."


def test_cost_command_answers_for_the_session_today_and_the_month(claw_env: ClawEnv) -> None:
    (claw_env.home / "workspace").mkdir()
    write_config(claw_env, '[models.prices."openai/test-model"]\ninput = 1.0\noutput = 1.0\n')
    claw_env.server.script(text("hi", usage=Usage(1_000_000, 0, cached_tokens=250_000)))
    assert run_claw(claw_env.env, "agent", "-m", "hello").returncode == 0
    done = run_claw(claw_env.env, "agent", "-m", "/cost")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert [line.split()[0:2] for line in lines] == [["this", "session"], ["today", "$1.00"], ["this", "month"]]
    assert lines[0].split()[2:4] == ["$1.00", "1"] and "250,000 cached" in lines[0]


def test_a_stopped_budget_is_one_line_on_stderr(claw_env: ClawEnv) -> None:
    (claw_env.home / "workspace").mkdir()
    write_config(claw_env, '[usage.budgets.agents.main]\nmonthlyTokens = 5\naction = "stop"\n')
    claw_env.server.script(text("hi", usage=Usage(4, 2)))
    assert run_claw(claw_env.env, "agent", "-m", "hello").returncode == 0
    refused = run_claw(claw_env.env, "agent", "-m", "again")
    assert refused.returncode != 0 and refused.stdout == ""
    assert refused.stderr.splitlines() == [
        "claw: error: budget: agent main has used 6 tokens of its 5-token monthlyTokens limit; calls are refused until "
        "next month (raise [usage.budgets.agents.main].monthlyTokens)"
    ]
    assert len(rows(claw_env)) == 1
