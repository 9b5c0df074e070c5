"""With no model configured the console still opens, says how to configure one, and the rest works:
sessions, slash commands (the console's and the gateway's), the editor (open and closed again), and
once a model is chosen with /model, a turn."""

from __future__ import annotations

from textual.widgets import OptionList

from claw.tui.screens.chat_screen import ChatScreen
from claw.tui.screens.editor_screen import EditorScreen
from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.no_model_panel import NoModelPanel
from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.conversation.user_message import UserMessage
from claw.tui.widgets.sessions.sessions_sidebar import SessionsSidebar
from tests.support.model_server import text
from tests.tui.conftest import SIZE, first, type_and_send, wait_for


def _notices(app) -> list[str]:
    return [n.text for n in app.chat.conversation.query(Notice)]


def _users(app) -> list[str]:
    return [m.text for m in app.chat.conversation.query(UserMessage)]


def _replies(app) -> list[str]:
    return [m.text for m in app.chat.conversation.query(AssistantMessage)]


async def test_no_model_panel_and_everything_else_works(claw_env, console, monkeypatch) -> None:
    monkeypatch.delenv("CLAW_MODEL")
    claw_env.server.script(text("Noted before."), text("Now I can talk."))
    built = console()
    # An older session, written by a turn that named its model (the agent itself has none).
    old = await built.client.run("remember this", session_key="agent:main:notes", model="openai/test-model")
    async for _event in built.client.events(old.run_id):
        pass
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        panel = await wait_for(pilot, lambda: first(app.chat.conversation, NoModelPanel), what="the panel")
        assert "No model configured" in panel.source and "CLAW_MODEL" in panel.source
        assert "no model" in app.chat.status.plain

        await type_and_send(pilot, "hello?")
        await wait_for(pilot, lambda: app.chat.conversation.query(Notice), what="a notice")
        assert "No model configured" in app.chat.conversation.query(Notice).last().text
        assert len(claw_env.server.chat_requests) == 1  # only the older session's turn

        # Slash commands: the console's own and the gateway's.
        await type_and_send(pilot, "/help")
        await wait_for(pilot, lambda: any(n.startswith("Commands:") for n in _notices(app)), what="/help")
        await type_and_send(pilot, "/status")
        status = await wait_for(pilot, lambda: [n for n in _notices(app) if n.startswith("Session ")], what="/status")
        assert "Model: not configured" in status[0]

        # Sessions: the sidebar lists them, and choosing one shows its history.
        sidebar = app.chat.query_one(SessionsSidebar)
        await pilot.press("ctrl+b")
        def notes_listed() -> bool:
            return bool(sidebar.display) and any(row["key"] == "agent:main:notes" for row in sidebar.rows)

        await wait_for(pilot, notes_listed, what="the older session in the sidebar")
        options = sidebar.query_one(OptionList)
        listed = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert sorted(listed) == ["agent:main:main", "agent:main:notes"]  # the current one and the older one
        options.focus()
        options.highlighted = listed.index("agent:main:notes")
        await pilot.press("enter")
        await wait_for(pilot, lambda: _users(app) == ["remember this"], what="the notes session's history")
        assert app.chat.session_key == "agent:main:notes"
        assert _replies(app) == ["Noted before."]
        app.screen.query_one("#prompt").focus()  # back from the sidebar to the prompt
        await type_and_send(pilot, "/session main")
        await wait_for(
            pilot,
            lambda: app.chat.session_key == "agent:main:main"
            and not _users(app)
            and first(app.chat.conversation, NoModelPanel),
            what="back in main, with the panel",
        )

        # The editor opens, shows the file, and closes again.
        await type_and_send(pilot, "/edit user")
        editor = await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen, what="the editor")
        await wait_for(pilot, lambda: editor.disk_text is not None, what="USER.md loaded")
        assert editor.file_name == "USER.md"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), what="the editor closed")

        # Choosing a model makes turns work.
        await type_and_send(pilot, "/model test-model")
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="a model")
        await type_and_send(pilot, "hello again")
        await wait_for(pilot, lambda: _replies(app) == ["Now I can talk."] and not app.chat.runs, what="the reply")
        assert _users(app) == ["hello again"] and claw_env.server.chat_requests[-1].model == "test-model"
