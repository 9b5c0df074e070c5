"""A gateway command's error (`/stauts`) shows in the console as an error notice, not as a reply or a turn."""

from __future__ import annotations

from claw.tui.widgets.conversation.notice import Notice
from tests.tui.conftest import SIZE, type_and_send, wait_for


async def test_an_unknown_command_is_an_error_notice(claw_env, console) -> None:
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "/stauts")
        errors = await wait_for(
            pilot,
            lambda: [n for n in app.chat.conversation.query(Notice) if n.kind == "error"],
            what="the error notice",
        )
        assert errors[0].text == "✗ unknown command /stauts (did you mean /status?) — /help lists them"
        assert not app.chat.conversation.query("UserMessage")  # no turn was started for it
    assert claw_env.server.chat_requests == []
