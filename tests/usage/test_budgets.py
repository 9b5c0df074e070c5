"""Budgets, checked from the ledger before each call: `stop` refuses the next call before anything reaches the
model, with one clear line; `warn` lets it go on and gives its notice once per limit and period."""

from __future__ import annotations

import logging

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.model_server import CHAT_PATH, Usage, text
from tests.usage.conftest import ledger_of, turn, write_config


async def test_stop_refuses_the_next_call_before_the_model(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, '[usage.budgets.agents.main]\ndailyTokens = 100\naction = "stop"\n')
    claw_env.server.script(text("first", usage=Usage(80, 30)), text("never sent"))
    client = make_client()
    first = await turn(client, "one")
    assert first[-1].data["phase"] == "end"
    second = await turn(client, "two")
    assert second[-1].data["phase"] == "error"
    message = second[-1].data["message"]
    assert message == (
        "budget: agent main has used 110 tokens of its 100-token dailyTokens limit; calls are refused until "
        "tomorrow (raise [usage.budgets.agents.main].dailyTokens)"
    )
    assert "\n" not in message
    assert len([r for r in claw_env.server.requests if r.path == CHAT_PATH]) == 1
    assert claw_env.server.pending == 1  # the second reply was never asked for


async def test_warn_goes_on_and_notices_once(claw_env: ClawEnv, make_client, caplog: pytest.LogCaptureFixture) -> None:
    write_config(
        claw_env,
        '[models.prices."openai/test-model"]\ninput = 1000.0\noutput = 1000.0\n'
        '[usage.budgets.agents.main]\ndailyCost = 0.05\naction = "warn"\n',
    )
    claw_env.server.default = lambda _request: text("ok", usage=Usage(40, 20))  # $0.06 a call
    client = make_client()
    with caplog.at_level(logging.WARNING, logger="claw.usage.budgets"):
        for message in ("one", "two", "three"):
            events = await turn(client, message)
            assert events[-1].data["phase"] == "end"
    notices = await client.call("usage.notices")
    assert len(notices) == 1
    assert notices[0]["message"].startswith("budget: agent main has used $0.0600 of its $0.0500 dailyCost limit")
    assert [r.getMessage() for r in caplog.records].count(notices[0]["message"]) == 1
    summary = await client.call("usage.summary")
    assert summary["total"]["calls"] == 3 and summary["notices"] == notices
    shown = await client.run("/cost")
    assert shown.status == "command" and notices[0]["message"] in shown.reply.splitlines()
    cost = await client.call("usage.cost", sessionKey="agent:main:main")
    assert cost["session"]["cost"] == pytest.approx(0.18) and cost["today"]["cost"] == pytest.approx(0.18)


async def test_a_job_budget_by_name_stops_that_job_only(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, '[usage.budgets.jobs.digest]\nmonthlyTokens = 10\naction = "stop"\n')
    claw_env.server.default = lambda _request: text("ok", usage=Usage(20, 5))
    client = make_client()
    await client.call("automations.add", every="1h", message="write the digest", name="digest")
    first = await client.call("automations.run", id="digest", wait=True)
    assert first["status"] == "ok"
    second = await client.call("automations.run", id="digest", wait=True)
    assert second["status"] == "error" and second["error"].startswith("budget: job digest has used 25 tokens")
    chat = await turn(client, "not a job")  # the agent itself has no budget
    assert chat[-1].data["phase"] == "end"
    assert ledger_of(client).ledger.flush()
