"""The sessions sidebar and the Ctrl+P picker switch sessions and show the chosen one's history."""

from __future__ import annotations

from textual.command import CommandPalette
from textual.widgets import OptionList

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.user_message import UserMessage
from claw.tui.widgets.sessions.sessions_sidebar import SessionsSidebar
from tests.support.model_server import text
from tests.support.turns import run_turn
from tests.tui.conftest import SIZE, wait_for
from tests.tui.palette import palette_hits


def _users(app) -> list[str]:
    return [m.text for m in app.chat.conversation.query(UserMessage)]


async def test_switching_sessions_shows_the_right_history(claw_env, console) -> None:
    claw_env.server.script(text("Alpha answer."), text("Beta answer."))
    built = console()
    await run_turn(built.client, "agent:main:alpha", "alpha question")
    await run_turn(built.client, "agent:main:beta", "beta question")
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.session_key == "agent:main:main", what="main session")
        assert _users(app) == []

        sidebar = app.chat.query_one(SessionsSidebar)
        assert not sidebar.display  # hidden until asked for
        await pilot.press("ctrl+b")
        assert sidebar.display
        await wait_for(pilot, lambda: len(sidebar.rows) == 2, what="two sessions listed")
        options = sidebar.query_one(OptionList)
        listed = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert listed == ["agent:main:main", "agent:main:beta", "agent:main:alpha"]  # current first, then newest
        preview = sidebar.rows[0]["lastMessagePreview"]
        assert "beta question" in str(preview) or preview == "Beta answer."

        options.focus()
        options.highlighted = listed.index("agent:main:alpha")
        await pilot.press("enter")
        await wait_for(pilot, lambda: _users(app) == ["alpha question"], what="alpha's history")
        assert app.chat.session_key == "agent:main:alpha" and "alpha" in app.chat.status.plain
        assert [m.text for m in app.chat.conversation.query(AssistantMessage)] == ["Alpha answer."]

        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the picker")
        await pilot.press(*"bta")  # fuzzy: b…t…a
        hits = await wait_for(pilot, lambda: palette_hits(app, "bta"), what="the picker's hits for 'bta'")
        assert [str(hit.help).split(" · ")[0] for hit in hits] == ["agent:main:beta"]
        await pilot.press("enter")
        await wait_for(pilot, lambda: _users(app) == ["beta question"], what="beta's history")
        assert app.chat.session_key == "agent:main:beta"


async def test_history_is_limited_to_the_last_200_messages(claw_env, console) -> None:
    built = console()
    claw_env.server.default = lambda _request: text("ok")
    for n in range(101):
        await run_turn(built.client, "agent:main:main", f"question {n}")
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _users(app), timeout=30, what="history")
        users = _users(app)
        assert len(users) == 100 and users[0] == "question 1" and users[-1] == "question 100"


async def test_session_option_opens_that_session(claw_env, console) -> None:
    claw_env.server.script(text("Work answer."))
    built = console(session_key="work")
    await run_turn(built.client, "agent:main:work", "work question")
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _users(app) == ["work question"], what="the work session's history")
        assert app.chat.session_key == "agent:main:work"
