"""A reply cut by the model's output limit (`finish_reason: length`) keeps its text in the console, with
one warning line under it that says so and how to go on."""

from __future__ import annotations

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.notice import Notice
from claw.vocab.run_event import TRUNCATED_NOTE
from tests.support.model_server import text
from tests.tui.conftest import SIZE, type_and_send, wait_for


async def test_a_cut_reply_gets_a_warning_line(claw_env, console) -> None:
    claw_env.server.script(text("Half of the answer", finish_reason="length"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="connected")
        await type_and_send(pilot, "hi")
        await wait_for(pilot, lambda: not app.chat.runs and app.chat.conversation.query(Notice), what="the notice")
        warnings = [n.text for n in app.chat.conversation.query(Notice) if n.kind == "warning"]
        assert warnings == [TRUNCATED_NOTE]
        assert app.chat.conversation.query(AssistantMessage).first().text == "Half of the answer"
