"""/rewrite: a new text for one of your messages, run from there. An earlier message runs in a fork made
just before it (the original untouched, the console on the fork); the last one is `/retry TEXT` in the same
session. The picker puts the picked message's text in the prompt, to edit before Enter."""

from __future__ import annotations

from claw.tui.fork_picker import MessagePickerScreen
from claw.tui.screens.chat_screen import ChatScreen
from claw.tui.widgets.conversation.notice import Notice
from tests.support.model_server import text
from tests.tui.conftest import SIZE, say, session_rows, type_and_send, user_texts, wait_for

MAIN = "agent:main:main"


def _sent(server) -> list[str]:
    """What the model was last sent, less the system prompt."""
    return [m["content"] for m in server.chat_requests[-1].body["messages"] if m["role"] != "system"]


async def test_editing_an_earlier_message_reruns_it_in_a_fork_and_the_last_in_place(claw_env, console) -> None:
    server = claw_env.server
    server.script(text("one"), text("two"), text("three"), text("two, again"), text("two, once more"))
    built = console()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        for message in ("first", "second", "third"):
            await say(pilot, app, server, message)
        parent = (await session_rows(app))[MAIN]
        history_before = (await app.client.call("chat.history", sessionKey=MAIN, limit=0))["messages"]

        await type_and_send(pilot, "/rewrite 3 second, said better")  # message 3 is "second"
        await wait_for(pilot, lambda: len(server.chat_requests) == 4 and not app.chat.runs, what="the edited run")
        assert _sent(server) == ["first", "one", "second, said better"]  # "third" and what followed: not there
        fork_key = app.chat.session_key
        assert fork_key.startswith("agent:main:fork:")
        await wait_for(pilot, lambda: user_texts(app) == ["first", "second, said better"], what="the fork shown")
        sessions = await session_rows(app)
        assert sessions[fork_key]["forkedFrom"] == MAIN and sessions[fork_key]["forkedAt"] == 2
        assert sessions[fork_key]["messages"] == 4
        assert sessions[MAIN] == parent
        assert (await app.client.call("chat.history", sessionKey=MAIN, limit=0))["messages"] == history_before

        await type_and_send(pilot, "/rewrite")  # the picker: newest first, Enter puts its text in the prompt
        picker = await wait_for(pilot, lambda: isinstance(app.screen, MessagePickerScreen) and app.screen)
        assert picker.choices[-1].number == 3 and "message 3" in str(
            picker.query_one("OptionList").get_option_at_index(0).prompt
        )
        await pilot.press("enter")
        prompt = app.chat.prompt.input
        await wait_for(pilot, lambda: prompt.text == "/rewrite 3 second, said better", what="the prefill")
        assert isinstance(app.screen, ChatScreen)
        prompt.set_text("/rewrite 3 second, once more")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(server.chat_requests) == 5 and not app.chat.runs, what="the retry")
        assert _sent(server) == ["first", "one", "second, once more"]  # the undone exchange not sent
        assert app.chat.session_key == fork_key  # the last message: edited in place, no new fork
        assert set(await session_rows(app)) == set(sessions)

        await type_and_send(pilot, "/rewrite")
        await wait_for(pilot, lambda: isinstance(app.screen, MessagePickerScreen), what="the picker again")
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), what="the picker closed")
        assert prompt.text == "" and len(server.chat_requests) == 5


async def test_editing_the_first_message_starts_afresh_and_a_wrong_number_is_refused(claw_env, console) -> None:
    server = claw_env.server
    server.script(text("one"), text("two"), text("one, again"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:

        def notices() -> list[str]:
            return [n.text for n in app.chat.conversation.query(Notice)]

        for message in ("first", "second"):
            await say(pilot, app, server, message)
        await type_and_send(pilot, "/rewrite 2 not mine")  # message 2 is the assistant's
        await wait_for(pilot, lambda: any("message 2 is not one of yours" in n for n in notices()), what="refusal")
        await type_and_send(pilot, "/rewrite first, edited")
        await wait_for(pilot, lambda: any("/rewrite [N [TEXT]]" in n for n in notices()), what="the usage")

        await type_and_send(pilot, "/rewrite 1 first, edited")
        await wait_for(pilot, lambda: len(server.chat_requests) == 3 and not app.chat.runs, what="the fresh run")
        assert _sent(server) == ["first, edited"]
        assert app.chat.session_key.startswith("agent:main:fork:")
        assert (await session_rows(app))[MAIN]["messages"] == 4
