"""`claw chat --resume`: the resume picker on its own (`ResumePickerApp`) returns the key picked, or None."""

from __future__ import annotations

from textual.widgets import OptionList

from claw.cli.sessions_pick import pick_latest
from claw.tui.session_picker import ResumePickerApp, SessionPickerScreen
from tests.support.model_server import text
from tests.support.turns import run_turn
from tests.tui.conftest import SIZE, wait_for


async def test_the_resume_app_returns_the_session_picked(claw_env, local_clients) -> None:
    client = local_clients()
    claw_env.server.script(text("Saturn has rings."), text("Mars is red."))
    await run_turn(client, "agent:main:space", "tell me about saturn")
    await run_turn(client, "agent:main:red", "and mars")
    app = ResumePickerApp(client, "main")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen)
        options = screen.query_one(OptionList)
        await wait_for(pilot, lambda: options.option_count == 2, what="both sessions")
        assert options.get_option_at_index(0).id == "agent:main:red"  # newest first
        await pilot.press(*"saturn")
        await wait_for(pilot, lambda: options.option_count == 1, what="only the session that matches")
        await pilot.press("enter")
    assert app.return_value == "agent:main:space"

    app = ResumePickerApp(client, "main")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        await pilot.press("escape")
    assert app.return_value is None


def test_continue_passes_over_subagent_and_automation_sessions() -> None:
    rows = [  # sessions.list rows as OpenClaw shapes them: `key`, `updatedAt` in ms
        {"key": "agent:main:subagent:1", "updatedAt": 1_767_398_400_000, "spawnedBy": "agent:main:main"},
        {"key": "agent:main:cron:ab12", "updatedAt": 1_767_484_800_000},
        {"key": "agent:main:work", "updatedAt": 1_767_312_000_000},
        {"key": "agent:main:main", "updatedAt": 1_767_225_600_000},
    ]
    assert pick_latest(rows) == "agent:main:work"
    assert pick_latest([]) is None


async def test_the_preview_renders_markdown_and_leaves_out_undone_exchanges(claw_env, local_clients) -> None:
    client = local_clients()
    claw_env.server.script(text("Saturn has **rings**."), text("A regretted answer."))
    await run_turn(client, "agent:main:space", "tell me about saturn")
    await run_turn(client, "agent:main:space", "something I take back")
    undone = await client.call("sessions.undo", sessionKey="agent:main:space")
    assert undone["undone"] == 2, undone
    app = ResumePickerApp(client, "main")
    async with app.run_test(size=SIZE) as pilot:
        screen = await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen) and app.screen)
        preview = screen.query_one("#preview")

        def shown() -> str:
            return "\n".join(strip.text for strip in preview.render_lines(preview.region.reset_offset))

        await wait_for(pilot, lambda: "Saturn has" in shown(), what="the preview")
        assert "Saturn has rings." in shown() and "**" not in shown()
        assert "regretted" not in shown() and "take back" not in shown()
