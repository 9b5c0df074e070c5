"""Enter sends what is typed even when the completion popup has not caught up with the typing yet (a
command pasted or typed fast: the popup still open for `/e` while the input already reads `/edit soul`).
Seen under load in the tmux test: the Enter was taken as "accept the completion", found none, and was lost."""

from __future__ import annotations

from textual.widgets import TextArea

from claw.tui.screens.editor_screen import EditorScreen
from tests.tui.conftest import SIZE, wait_for


async def test_enter_with_a_stale_popup_submits_the_text(claw_env, console) -> None:
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.prompt.catalog.get("edit"), what="connected")
        prompt = app.chat.prompt
        await pilot.press("/", "e")
        assert prompt.popup.is_open and prompt.input.completing
        with prompt.prevent(TextArea.Changed):  # the popup does not hear of these: as if it lagged behind
            prompt.input.insert("dit soul")
        assert prompt.input.completing and prompt.input.text == "/edit soul"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen), what="the editor on SOUL.md")
        assert not prompt.popup.is_open


async def test_enter_on_a_live_popup_still_accepts_the_completion(claw_env, console) -> None:
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.prompt.catalog.get("status"), what="connected")
        prompt = app.chat.prompt
        await pilot.press("/", "s", "t", "a")
        assert [c.name for c in prompt.popup.commands] == ["status"]
        await pilot.press("enter")  # accepts /status (no arguments: submitted at once)
        await wait_for(pilot, lambda: not prompt.popup.is_open and prompt.input.text == "", what="/status sent")


async def test_a_long_description_ends_in_an_ellipsis(claw_env, console) -> None:
    app = console().app
    async with app.run_test(size=(60, 30)) as pilot:
        app.chat.prompt.input.set_text("/fo")
        popup = app.chat.prompt.popup
        await wait_for(pilot, lambda: popup.is_open, what="the popup")
        await pilot.pause(0.2)
        shown = [strip.text for strip in popup.render_lines(popup.region.reset_offset)]  # what is on screen
        fork = next(line for line in shown if "/fork" in line)
        assert fork.rstrip(" │").endswith("…")  # cut where it had to be, and said so
