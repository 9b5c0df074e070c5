"""With no model configured the console still opens, says how to configure one, and the rest works."""

from __future__ import annotations

from claw.tui.screens.editor_screen import EditorScreen
from claw.tui.widgets.conversation.no_model_panel import NoModelPanel
from claw.tui.widgets.conversation.notice import Notice
from tests.support.model_server import text
from tests.tui.conftest import SIZE, first, type_and_send, wait_for


async def test_no_model_panel_and_everything_else_works(claw_env, console, monkeypatch) -> None:
    monkeypatch.delenv("CLAW_MODEL")
    claw_env.server.script(text("Now I can talk."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        panel = await wait_for(pilot, lambda: first(app.chat.conversation, NoModelPanel), what="the panel")
        assert "No model configured" in panel.source and "CLAW_MODEL" in panel.source
        assert "no model" in app.chat.status.plain

        await type_and_send(pilot, "hello?")
        await wait_for(pilot, lambda: app.chat.conversation.query(Notice), what="a notice")
        assert "No model configured" in app.chat.conversation.query(Notice).last().text
        assert claw_env.server.chat_requests == []

        await type_and_send(pilot, "/edit user")
        await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen), what="the editor")
        await pilot.press("escape")

        await type_and_send(pilot, "/model test-model")
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="a model")
        await type_and_send(pilot, "hello again")
        await wait_for(pilot, lambda: claw_env.server.chat_requests, what="a request")
        assert claw_env.server.chat_requests[0].model == "test-model"
