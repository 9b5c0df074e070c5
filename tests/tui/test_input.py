"""The prompt: Enter sends, Ctrl+J adds a line, Up/Down recall inputs, Ctrl+C clears then quits, Ctrl+D quits."""

from __future__ import annotations

import asyncio

from textual import events

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


async def test_editing_keys_keep_their_place_among_typed_keys_while_the_screen_is_busy(claw_env, console) -> None:
    # Ctrl+U, typed, Enter: the prompt's own binding applies where it was typed, even while the screen's queue
    # is held up (a run ending, a notice being drawn): what was cleared is never what gets sent.
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.chat.prompt.input
        await pilot.press("o", "l", "d")

        held: list[bool] = []

        async def busy() -> None:
            await asyncio.sleep(0.5)
            held.append(True)

        app.chat.call_next(busy)
        for key in ("ctrl+u", "n", "e", "w"):  # typed at once, as a terminal delivers them
            pressed = events.Key(key, key if len(key) == 1 else None)
            pressed.set_sender(app)
            app._driver.send_message(pressed)  # type: ignore[union-attr]
        await wait_for(pilot, lambda: held, what="the screen's busy spell")
        await wait_for(pilot, lambda: prompt.text == "new", timeout=10, what="the keys in their order")
        await pilot.pause(0.2)  # whatever the busy screen held up has run by now
        assert prompt.text == "new"
