"""The approval dialog says why a command needs approval — here, why an "always" entry does not cover it."""

from __future__ import annotations

import json
import os
import shutil

from claw.tui.screens.approval_screen import ApprovalScreen
from claw.tui.widgets.conversation.tool_card import ToolCard
from tests.support.model_server import text, tool_call
from tests.tui.conftest import SIZE, type_and_send, wait_for

ATTACK = "git -c alias.x='!touch ../outside/PWNED; id' x"
GIT = os.path.realpath(shutil.which("git") or "/usr/bin/git")


async def test_the_dialog_shows_why_an_allowed_binary_still_asks(claw_env, console, workspace) -> None:
    entry = {"pattern": GIT, "addedAt": "2025-01-01T00:00:00+00:00", "lastCommand": "git status"}
    (claw_env.home / "exec-approvals.json").write_text(
        json.dumps({"version": 1, "agents": {"main": {"allowlist": [entry]}}})
    )
    (workspace.parent / "outside").mkdir(exist_ok=True)
    claw_env.server.script(tool_call("exec", {"command": ATTACK}), text("Not run."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "run my alias")
        modal = await wait_for(
            pilot,
            lambda: isinstance(app.screen, ApprovalScreen) and app.screen.query("#reason") and app.screen,
            what="the modal with its reason",
        )
        assert str(modal.query_one("#command").render()) == ATTACK
        reason = str(modal.query_one("#reason").render())
        assert "git -c sets configuration" in reason
        assert f"an allowlist entry for {GIT} covers only its plain use" in reason
        assert "only an approval of this exact command can allow it" in reason
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.chat.runs, what="the run to end")
        card = app.chat.conversation.query(ToolCard).last()
        assert card.status == "error" and "exec denied by user" in card.result
    assert not (workspace.parent / "outside" / "PWNED").exists()
