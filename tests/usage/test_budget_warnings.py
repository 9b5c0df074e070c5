"""A `warn` budget's limit, once reached, is said live and once: a `budget` event in the run whose call found
it (the console shows it as a notice), and, for an automation job's run, on the job's delivery channel."""

from __future__ import annotations

from typing import Any

from claw.tui.widgets.conversation.notice import Notice
from claw.vocab.run_event import Phase
from tests.channels.conftest import Start, eventually, telegram_config
from tests.channels.fakes import FakeTelegram
from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, text, tool_calls
from tests.tui.conftest import SIZE, type_and_send, wait_for
from tests.usage.conftest import turn, write_config

WARN = '[usage.budgets.agents.main]\ndailyTokens = 100\naction = "warn"\n'
MESSAGE = (
    "budget: agent main has used 110 tokens of its 100-token dailyTokens limit; calls go on; the limit resets "
    "tomorrow (raise [usage.budgets.agents.main].dailyTokens)"
)


async def test_a_warn_limit_reached_is_a_budget_event_once(claw_env: ClawEnv, make_client) -> None:
    write_config(claw_env, WARN)
    claw_env.server.default = lambda _request: text("ok", usage=Usage(80, 30))
    client = make_client()
    first = await turn(client, "one")  # under the limit when its call starts; over it after
    assert [e.data["phase"] for e in first if e.phase == Phase.BUDGET] == []
    second = await turn(client, "two")
    (warned,) = [e.data for e in second if e.phase == Phase.BUDGET]
    assert warned == {"phase": "budget", "budget": "agent main", "limit": "dailyTokens",
                      "period": warned["period"], "message": MESSAGE}  # fmt: skip
    assert second[-1].data["phase"] == "end"  # a warning: the run goes on
    third = await turn(client, "three")
    assert [e for e in third if e.phase == Phase.BUDGET] == []  # once per limit and period


async def test_the_console_shows_the_warning_as_a_notice(claw_env: ClawEnv, console: Any) -> None:
    write_config(claw_env, WARN)
    claw_env.server.default = lambda _request: text("ok", usage=Usage(80, 30))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="connected")

        def warnings() -> list[str]:
            return [n.text for n in app.chat.conversation.query(Notice) if n.kind == "warning"]

        await type_and_send(pilot, "one")
        await wait_for(pilot, lambda: app.chat.status.tokens_in == 80, what="the first turn")
        assert warnings() == []
        await type_and_send(pilot, "two")
        await wait_for(pilot, lambda: warnings(), what="the budget notice")
        assert warnings() == [f"⚠ {MESSAGE}"]


async def test_a_jobs_warning_goes_to_its_delivery_channel(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    budget = '[usage.budgets.jobs.brief]\nmonthlyTokens = 10\naction = "warn"\n'
    claw_env.server.script(
        tool_calls([("read", {"path": "SOUL.md"})], usage=Usage(20, 5)),  # this round spends the budget
        text("Your brief.", usage=Usage(30, 5)),  # the next round's call finds it spent
    )
    ch = await start_channels(telegram_config(telegram.api_base) + budget)
    job = await ch.call("automations.add", every="1h", message="brief me", name="brief", deliver="telegram:4242")
    run = await ch.call("automations.run", id=job["id"], wait=True)
    assert run["status"] == "ok" and run["deliveryStatus"] == "queued", run
    sent = await eventually(lambda: len(telegram.calls_of("sendMessage")) == 2 and telegram.calls_of("sendMessage"),
                            what="the reply and the warning")  # fmt: skip
    assert [call.params["chat_id"] for call in sent] == [4242, 4242]
    assert sent[0].params["text"] == "Your brief."
    assert sent[1].params["text"].startswith("⚠ budget: job brief has used 25 tokens of its 10-token monthlyTokens")
