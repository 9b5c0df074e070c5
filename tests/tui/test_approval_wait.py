"""An exec call that waited for the user's approval says so on its card while it waits, and afterwards
shows that wait apart from the time the command itself ran."""

from __future__ import annotations

from claw.tui.format import duration
from claw.tui.screens.approval_screen import ApprovalScreen
from claw.tui.widgets.conversation.tool_card import ToolCard
from tests.gateway.conftest import write_config
from tests.support.model_server import text, tool_call
from tests.tui.conftest import SIZE, first, type_and_send, wait_for

ASK_ALWAYS = '[agents.defaults.tools.exec]\nsecurity = "allowlist"\nask = "always"\n'
THINKING_IT_OVER = 1.5
"""How long the user takes to answer: the wait the card has to tell apart from the run time."""


def _header(card: ToolCard) -> str:
    return str(card.query_one(".header").render())


async def test_exec_card_shows_the_approval_wait_apart_from_the_run_time(claw_env, console) -> None:
    write_config(claw_env.home, ASK_ALWAYS)
    claw_env.server.script(tool_call("exec", {"command": "echo after-the-wait"}), text("It ran."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "run it")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the question")
        card = await wait_for(pilot, lambda: first(app.chat.conversation, ToolCard), what="the exec card")
        await wait_for(pilot, lambda: "waiting for approval" in _header(card), what="the card to say it waits")
        await pilot.pause(THINKING_IT_OVER)  # not a synchronisation: the user's time to answer, to be measured
        await pilot.press("o")
        await wait_for(pilot, lambda: card.status == "ok" and not app.chat.runs, what="the run to end")

        assert "after-the-wait" in card.result
        assert card.elapsed is not None and THINKING_IT_OVER <= card.approval_wait <= card.elapsed
        header = _header(card)
        assert "waiting for approval" not in header
        assert (
            f"{duration(card.elapsed - card.approval_wait)} · waited {duration(card.approval_wait)} for approval"
            in header
        )
