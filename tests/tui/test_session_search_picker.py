"""Finding a session in the console by what was said: the Ctrl+P palette and the /resume picker (with its
preview), and /fork, /undo and /export --format, on a real gateway and the scripted model."""

from __future__ import annotations

import io

from rich.console import Console
from textual.command import CommandPalette
from textual.widgets import OptionList, Static

from claw.tui.session_picker import SessionPickerScreen
from claw.tui.widgets.conversation.notice import Notice
from tests.support.model_server import text
from tests.support.turns import run_turn
from tests.tui.conftest import SIZE, type_and_send, user_texts, wait_for
from tests.tui.palette import palette_hits


def _notice(app, prefix: str) -> str:
    found = [n.text for n in app.chat.conversation.query(Notice) if n.text.startswith(prefix)]
    return found[-1] if found else ""


async def test_the_palette_finds_a_session_by_a_word_said_in_it(claw_env, console) -> None:
    claw_env.server.script(text("Noted."), text("Fine."))
    built = console()
    await run_turn(built.client, "agent:main:alpha", "the recipe needs pomegranate seeds")
    await run_turn(built.client, "agent:main:beta", "something else entirely")
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the picker")
        await pilot.press(*"pomegr")  # unfinished: the picker searches as you type
        hits = await wait_for(pilot, lambda: palette_hits(app, "pomegr"), what="the hits for 'pomegr'")
        assert [str(hit.help).split(" · ")[0] for hit in hits] == ["agent:main:alpha"]
        assert "pomegranate" in str(hits[0].text)
        await pilot.press("enter")
        await wait_for(pilot, lambda: user_texts(app) == ["the recipe needs pomegranate seeds"], what="alpha's history")
        assert app.chat.session_key == "agent:main:alpha"


def shown_text(widget: Static) -> str:
    """What `widget` shows, as plain text (the preview is Markdown and styled text, rendered by rich)."""
    console = Console(width=100, file=io.StringIO(), record=True)
    console.print(widget.content)
    return console.export_text()


async def test_resume_picker_searches_previews_and_opens(claw_env, console) -> None:
    claw_env.server.script(text("Kiwis are great."), text("Bananas too."))
    built = console()
    await run_turn(built.client, "agent:main:fruit", "tell me about kiwis")
    await run_turn(built.client, "agent:main:other", "bananas please")
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "/resume")
        screen = await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen)
        options = screen.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count >= 2, what="every session listed")
        await pilot.press(*"kiwis")
        await wait_for(
            pilot,
            lambda: [options.get_option_at_index(i).id for i in range(options.option_count)] == ["agent:main:fruit"],
            what="only the session that said it",
        )
        preview = screen.query_one("#preview", Static)
        await wait_for(pilot, lambda: "Kiwis are great." in shown_text(preview), what="the preview")
        assert "tell me about kiwis" in shown_text(preview)
        await pilot.press("enter")
        await wait_for(pilot, lambda: user_texts(app) == ["tell me about kiwis"], what="the resumed history")
        assert app.chat.session_key == "agent:main:fruit"


async def test_undo_fork_and_export_in_the_console(claw_env, console, tmp_path, monkeypatch) -> None:
    claw_env.server.script(text("one"), text("two"), text("three"))
    monkeypatch.chdir(tmp_path)
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "first")
        await wait_for(pilot, lambda: len(claw_env.server.chat_requests) == 1 and not app.chat.runs)
        await type_and_send(pilot, "second")
        await wait_for(pilot, lambda: len(claw_env.server.chat_requests) == 2 and not app.chat.runs)
        await type_and_send(pilot, "/undo")
        assert "2 messages" in await wait_for(pilot, lambda: _notice(app, "Undid"), what="the undo")
        await type_and_send(pilot, "third")
        await wait_for(pilot, lambda: len(claw_env.server.chat_requests) == 3 and not app.chat.runs)
        sent = claw_env.server.chat_requests[-1].body["messages"]
        assert [m["content"] for m in sent if m["role"] != "system"] == ["first", "one", "third"]

        await type_and_send(pilot, "/export --format html")
        said = await wait_for(pilot, lambda: _notice(app, "Exported"), what="the export")
        written = list(tmp_path.glob("claw-main-*.html"))
        assert len(written) == 1 and said.endswith(str(written[0].resolve()))
        assert "User (undone)" in written[0].read_text()  # kept, and marked

        await type_and_send(pilot, "/fork 2")
        await wait_for(pilot, lambda: app.chat.session_key.startswith("agent:main:fork:"), what="the fork opened")
        await wait_for(pilot, lambda: user_texts(app) == ["first"], what="the fork's history")
        rows = {r["key"]: r for r in (await app.client.call("sessions.list"))["sessions"]}
        assert rows[app.chat.session_key]["forkedFrom"] == "agent:main:main"
        assert rows["agent:main:main"]["messages"] == 6


async def test_retry_runs_the_last_message_again_from_the_same_history(claw_env, console) -> None:
    claw_env.server.script(text("one"), text("a bad answer"), text("a better answer"), text("edited"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        for n, message in enumerate(("first", "second"), start=1):
            await type_and_send(pilot, message)
            await wait_for(pilot, lambda n=n: len(claw_env.server.chat_requests) == n and not app.chat.runs)
        await type_and_send(pilot, "/retry")
        await wait_for(pilot, lambda: len(claw_env.server.chat_requests) == 3 and not app.chat.runs, what="the rerun")
        sent = claw_env.server.chat_requests[-1].body["messages"]
        assert [m["content"] for m in sent if m["role"] != "system"] == ["first", "one", "second"]
        await type_and_send(pilot, "/retry second, said better")
        await wait_for(pilot, lambda: len(claw_env.server.chat_requests) == 4 and not app.chat.runs, what="the edit")
        sent = claw_env.server.chat_requests[-1].body["messages"]
        assert [m["content"] for m in sent if m["role"] != "system"] == ["first", "one", "second, said better"]
