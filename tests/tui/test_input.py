"""The prompt: Enter sends, Ctrl+J adds a line, Up/Down recall inputs, Ctrl+C clears then quits, Ctrl+D quits."""

from __future__ import annotations

from claw.tui.widgets.conversation.user_message import UserMessage
from tests.support.model_server import text
from tests.tui.conftest import SIZE, first, wait_for


async def test_multiline_input_and_history(claw_env, console) -> None:
    claw_env.server.default = lambda _request: text("ok")
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.chat.prompt.input
        await pilot.press("h", "i", "ctrl+j", "t", "h", "e", "r", "e", "shift+enter", "!")
        assert prompt.text == "hi\nthere\n!"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not app.chat.runs and app.chat.conversation.query(UserMessage))
        assert first(app.chat.conversation, UserMessage).text == "hi\nthere\n!"
        assert prompt.text == ""
        await pilot.press("s", "e", "c", "o", "n", "d", "enter")
        await wait_for(pilot, lambda: len(app.chat.conversation.query(UserMessage)) == 2 and not app.chat.runs)

        await pilot.press("d", "r", "a", "f", "t", "up")
        assert prompt.text == "second"
        await pilot.press("up")
        assert prompt.text == "hi\nthere\n!"
        await pilot.press("down", "down", "down", "down")
        assert prompt.text == "draft"


async def test_ctrl_c_clears_then_quits(claw_env, console) -> None:
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "b", "c", "ctrl+c")
        assert app.chat.prompt.input.text == ""
        assert app.is_running
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running, what="the app to quit")


async def test_ctrl_d_quits(claw_env, console) -> None:
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+d")
        await wait_for(pilot, lambda: not app.is_running, what="the app to quit")
