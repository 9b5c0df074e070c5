"""/fork with no number: a picker of your messages, newest first, each numbered as `/fork N` counts; Enter
forks there and opens the fork, Escape changes nothing; `/fork all` copies everything without asking."""

from __future__ import annotations

from textual.widgets import OptionList

from claw.tui.fork_picker import MessagePickerScreen
from claw.tui.screens.chat_screen import ChatScreen
from tests.support.model_server import text
from tests.tui.conftest import SIZE, say, session_rows, type_and_send, user_texts, wait_for

MAIN = "agent:main:main"


async def test_fork_picks_a_message_newest_first_and_opens_the_fork_there(claw_env, console) -> None:
    claw_env.server.script(text("one"), text("two"), text("three"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        for message in ("first", "second", "third"):
            await say(pilot, app, claw_env.server, message)
        parent = (await session_rows(app))[MAIN]

        await type_and_send(pilot, "/fork")
        picker = await wait_for(pilot, lambda: isinstance(app.screen, MessagePickerScreen) and app.screen)
        options = picker.query_one(OptionList)
        rows = [options.get_option_at_index(i) for i in range(options.option_count)]
        assert [row.id for row in rows] == ["6", "4", "2"]  # each exchange's end, as `/fork N` counts
        assert "third" in str(rows[0].prompt) and "fork at 6" in str(rows[0].prompt)
        assert "first" in str(rows[2].prompt)
        assert options.highlighted == 0

        await pilot.press("down", "enter")  # "second": keep the first two exchanges
        await wait_for(pilot, lambda: app.chat.session_key.startswith("agent:main:fork:"), what="the fork opened")
        await wait_for(pilot, lambda: user_texts(app) == ["first", "second"], what="the fork's history")
        assert isinstance(app.screen, ChatScreen)
        sessions = await session_rows(app)
        fork = sessions[app.chat.session_key]
        assert fork["forkedFrom"] == MAIN and fork["messages"] == 4
        assert sessions[MAIN] == parent  # the original untouched

        await type_and_send(pilot, "/fork")
        await wait_for(pilot, lambda: isinstance(app.screen, MessagePickerScreen), what="the picker again")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), what="the picker closed")
        assert app.chat.session_key == fork["key"]
        assert set(await session_rows(app)) == set(sessions)  # Escape forked nothing

        await type_and_send(pilot, "/fork all")
        await wait_for(pilot, lambda: app.chat.session_key not in sessions, what="the whole fork opened")
        assert not isinstance(app.screen, MessagePickerScreen)
        copied = (await session_rows(app))[app.chat.session_key]
        assert copied["forkedFrom"] == fork["key"] and copied["messages"] == 4
        await wait_for(pilot, lambda: user_texts(app) == ["first", "second"], what="the whole copy shown")


async def test_fork_with_nothing_finished_says_so_and_a_bad_argument_shows_the_usage(claw_env, console) -> None:
    from claw.tui.widgets.conversation.notice import Notice

    claw_env.server.script(text("one"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:

        def notices() -> list[str]:
            return [n.text for n in app.chat.conversation.query(Notice)]

        await say(pilot, app, claw_env.server, "first")
        await type_and_send(pilot, "/fork sideways")
        await wait_for(pilot, lambda: any("/fork [N|all]" in n for n in notices()), what="the usage")
        await app.client.call("sessions.undo", sessionKey=MAIN)
        await type_and_send(pilot, "/fork")
        await wait_for(pilot, lambda: any("nothing to fork yet" in n for n in notices()), what="the refusal")
        assert isinstance(app.screen, ChatScreen)
