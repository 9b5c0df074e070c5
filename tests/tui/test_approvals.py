"""When exec asks, a modal shows the exact command and directory; the run waits for the answer."""

from __future__ import annotations

import json

from textual.widgets import Footer

from claw.tui.screens.approval_screen import ApprovalScreen
from claw.tui.widgets.conversation.tool_card import ToolCard
from tests.gateway.conftest import write_config
from tests.support.model_server import text, tool_call
from tests.tui.conftest import SIZE, type_and_send, wait_for

ASK_ALWAYS = '[agents.defaults.tools.exec]\nsecurity = "allowlist"\nask = "always"\n'


async def test_approval_modal_gates_exec(claw_env, console, workspace) -> None:
    write_config(claw_env.home, ASK_ALWAYS)
    claw_env.server.script(
        tool_call("exec", {"command": "echo approved-run"}),
        text("It ran."),
        tool_call("exec", {"command": "echo denied-run"}),
        text("It did not run."),
    )
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "run it")
        modal = await wait_for(
            pilot,
            lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#command") and app.screen,
            what="the modal",
        )
        assert str(modal.query_one("#command").render()) == "echo approved-run"
        assert str(workspace) in str(modal.query_one("#cwd").render())
        assert "waiting for approval" in app.chat.status.plain
        # The footer on show is the dialog's own: Esc denies there (the chat screen's "Abort" is not shown).
        footer = modal.query_one(Footer)
        assert footer.screen is modal and modal.active_bindings["escape"].binding.description == "Deny"
        await pilot.pause(0.5)
        assert len(claw_env.server.chat_requests) == 1  # the run waits for the answer

        await pilot.press("o")
        await wait_for(pilot, lambda: not app.chat.runs, what="the first run to end")
        card = app.chat.conversation.query(ToolCard).last()
        assert card.status == "ok" and "approved-run" in card.result
        assert len(claw_env.server.chat_requests) == 2

        await type_and_send(pilot, "run the other one")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the second modal")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.chat.runs, what="the second run to end")
        card = app.chat.conversation.query(ToolCard).last()
        assert card.status == "error" and "denied-run" not in card.result
        assert not isinstance(app.screen, ApprovalScreen)


async def test_always_adds_the_command_to_the_allowlist(claw_env, console) -> None:
    write_config(claw_env.home, '[agents.defaults.tools.exec]\nsecurity = "allowlist"\nask = "on-miss"\n')
    claw_env.server.script(
        tool_call("exec", {"command": "touch first.txt"}),
        text("ok 1"),
        tool_call("exec", {"command": "touch second.txt"}),
        text("ok 2"),
    )
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "run touch")
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen), what="the modal")
        await pilot.press("a")
        await wait_for(pilot, lambda: not app.chat.runs, what="the run to end")
        await type_and_send(pilot, "again")
        await wait_for(
            pilot,
            lambda: len(app.chat.conversation.query(ToolCard)) == 2 and not app.chat.runs,
            what="the second run, unasked",
        )
        assert all(card.status == "ok" for card in app.chat.conversation.query(ToolCard))
    approvals = json.loads((claw_env.home / "exec-approvals.json").read_text())
    assert approvals["agents"]["main"]["allowlist"][0]["lastCommand"] == "touch first.txt"


async def test_no_always_for_a_command_that_can_never_be_remembered(claw_env, console, workspace) -> None:
    write_config(claw_env.home, '[agents.defaults.tools.exec]\nsecurity = "allowlist"\nask = "on-miss"\n')
    claw_env.server.script(tool_call("exec", {"command": "echo hi > out.txt"}), text("done"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "write it")
        modal = await wait_for(
            pilot, lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#deny") and app.screen
        )
        assert not modal.query("#allow-always") and "a" not in modal.active_bindings
        await pilot.press("a")  # not a key of this dialog: nothing is decided
        await pilot.pause(0.3)
        assert app.screen is modal
        await pilot.press("o")
        await wait_for(pilot, lambda: not app.chat.runs, what="the run to end")
    assert (workspace / "out.txt").read_text() == "hi\n"
