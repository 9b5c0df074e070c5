"""/undo in the console: the exchange leaves the conversation shown (as it left the model's history), a notice
says where it was, and the record keeps it: the Markdown export marks it undone."""

from __future__ import annotations

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.notice import Notice
from claw.tui.widgets.conversation.user_message import UserMessage
from tests.support.model_server import text
from tests.tui.conftest import SIZE, type_and_send, wait_for


def _shown(app, kind) -> list[str]:
    return [w.text for w in app.chat.conversation.query(kind)]


async def test_undo_takes_the_exchange_off_the_screen_and_the_export_marks_it(claw_env, console, tmp_path) -> None:
    claw_env.server.script(text("Paris."), text("Rome."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "capital of france")
        await wait_for(pilot, lambda: _shown(app, AssistantMessage) == ["Paris."] and not app.chat.runs)
        await type_and_send(pilot, "capital of italy")
        await wait_for(pilot, lambda: _shown(app, AssistantMessage) == ["Paris.", "Rome."] and not app.chat.runs)

        await type_and_send(pilot, "/undo")
        await wait_for(
            pilot,
            lambda: any(n.startswith("Undid the last exchange") for n in _shown(app, Notice)),
            what="the undo notice",
        )
        assert _shown(app, AssistantMessage) == ["Paris."]
        assert _shown(app, UserMessage) == ["capital of france"]
        assert any(n.startswith("↶ an exchange was undone here") for n in _shown(app, Notice))

        out = tmp_path / "chat.md"
        await type_and_send(pilot, f"/export {out}")
        await wait_for(pilot, lambda: out.exists(), what="the export")
    exported = out.read_text(encoding="utf-8")
    assert "capital of italy" in exported and "## User (undone)" in exported
    assert "## User · " in exported  # the first exchange, not undone
