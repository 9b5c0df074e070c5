"""The bootstrap editor: saves atomically through the gateway, shows size against the cap,
offers a reload when the file changes outside, and the next turn sees the saved text."""

from __future__ import annotations

import os

from claw.tui.screens.chat_screen import ChatScreen
from claw.tui.screens.editor_screen import EditorScreen
from claw.tui.widgets.editor.reload_banner import ReloadBanner
from tests.gateway.conftest import write_config
from tests.support.model_server import text
from tests.tui.conftest import SIZE, type_and_send, wait_for
from tests.tui.palette import palette_hits


async def _open_editor(pilot, app, name: str = "soul") -> EditorScreen:
    await type_and_send(pilot, f"/edit {name}")
    editor = await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen, what="the editor")
    await wait_for(pilot, lambda: editor.disk_text is not None, what="the file loaded")
    return editor


async def test_editor_saves_and_the_next_turn_uses_the_edit(claw_env, console, workspace) -> None:
    claw_env.server.script(text("Arr."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot, app)
        assert editor.editor.text == "You are Testy, a careful assistant.\n"
        assert editor.editor.language == "markdown"  # highlighted (tree-sitter-markdown)
        assert "SOUL.md" in editor.status.plain and "/ 20,000 chars" in editor.status.plain

        editor.editor.load_text("You are Captain Claw, a pirate.\n")
        await wait_for(pilot, lambda: editor.status.dirty, what="the edit noticed")
        assert "modified" in editor.status.plain
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not editor.status.dirty and "saved" in editor.status.plain, what="saved")
        assert (workspace / "SOUL.md").read_text() == "You are Captain Claw, a pirate.\n"
        assert not list(workspace.glob("*.tmp*"))  # replaced atomically, no temp file left

        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), what="back to the chat")
        await type_and_send(pilot, "who are you?")
        await wait_for(pilot, lambda: claw_env.server.chat_requests, what="the next request")
        system = claw_env.server.chat_requests[0].messages[0]
        assert system["role"] == "system" and "You are Captain Claw, a pirate." in system["content"]


async def test_outside_change_is_offered_for_reload(claw_env, console, workspace) -> None:
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot, app)
        (workspace / "SOUL.md").write_text("Changed by another editor.\n", encoding="utf-8")
        banner = editor.query_one(ReloadBanner)
        await wait_for(pilot, lambda: banner.is_open, timeout=10, what="the reload offer")
        assert editor.editor.text == "You are Testy, a careful assistant.\n"  # nothing lost until asked
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: editor.editor.text == "Changed by another editor.\n", what="reloaded")
        assert not banner.is_open and not editor.status.dirty


async def test_over_the_cap_warns_about_truncation(claw_env, console, workspace) -> None:
    write_config(claw_env.home, "[agents.defaults]\nbootstrapMaxChars = 100\n")
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot, app, "agents")
        assert "0 / 100 chars" in editor.status.plain and not editor.status.truncated
        editor.editor.load_text("x" * 150)
        await wait_for(pilot, lambda: editor.status.truncated, what="the size over the cap noticed")
        assert "over the cap" in editor.status.plain
        assert "150 / 100 chars" in editor.status.plain


async def test_escape_with_unsaved_changes_asks_twice(claw_env, console, workspace) -> None:
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        editor = await _open_editor(pilot, app)
        editor.editor.load_text("draft\n")
        await wait_for(pilot, lambda: editor.status.dirty, what="the edit noticed")
        await pilot.press("escape")
        assert app.screen is editor
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen), what="closed")
    assert (workspace / "SOUL.md").read_text() == "You are Testy, a careful assistant.\n"
    assert os.stat(workspace / "SOUL.md")


async def test_f2_picks_a_file_to_edit(claw_env, console, workspace) -> None:
    from textual.command import CommandPalette

    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.client is not None, what="connected")
        await pilot.press("f2")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), what="the file picker")
        await pilot.press(*"identity")
        hits = await wait_for(pilot, lambda: palette_hits(app, "identity"), what="the picker's hits for 'identity'")
        assert str(hits[0].help) == "name, emoji, vibe"  # IDENTITY.md, highlighted
        await pilot.press("enter")
        editor = await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen, what="editor")
        assert editor.file_name == "IDENTITY.md"
