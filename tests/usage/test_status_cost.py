"""The console's status bar shows the session's cost from the usage ledger after each turn, priced now,
through the console's client: in-process and attached to a gateway over WebSocket alike."""

from __future__ import annotations

from typing import Any

import pytest

from claw.usage.capability import UsageCapability
from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage, text
from tests.tui.conftest import SIZE, type_and_send, wait_for
from tests.usage.conftest import write_config

PRICED = '[models.prices."openai/test-model"]\ninput = 2.0\noutput = 8.0\n'


@pytest.mark.parametrize("attached", [False, True], ids=["in-process", "attached"])
async def test_the_status_bar_shows_the_sessions_cost(
    claw_env: ClawEnv, console: Any, remote_console: Any, attached: bool
) -> None:
    write_config(claw_env, PRICED)
    claw_env.server.script(text("One.", usage=Usage(1000, 100)), text("Two.", usage=Usage(1000, 100)))
    built = await remote_console() if attached else console()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        status = app.chat.status
        await wait_for(pilot, lambda: status.model == "test-model", what="connected")
        assert status.cost is None and "$" not in status.plain  # no call yet: nothing known
        await type_and_send(pilot, "first")
        await wait_for(pilot, lambda: status.cost == "$0.0028", what="the first turn's cost")
        assert "↑1.0k ↓100 $0.0028" in status.plain
        await type_and_send(pilot, "second")
        await wait_for(pilot, lambda: status.cost == "$0.0056", what="both turns' cost")


async def test_no_cost_is_shown_without_a_known_price(claw_env: ClawEnv, console: Any, monkeypatch) -> None:
    # As if the scripted server were a hosted endpoint: not free, and test-model has no shipped price.
    monkeypatch.setattr(UsageCapability, "is_local", lambda _self, _provider: False)
    claw_env.server.script(text("Unpriced.", usage=Usage(1000, 100)))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        status = app.chat.status
        await wait_for(pilot, lambda: status.model == "test-model", what="connected")
        await type_and_send(pilot, "hello")
        await wait_for(pilot, lambda: status.tokens_in == 1000, what="the counters")
        assert status.cost is None and "$" not in status.plain
