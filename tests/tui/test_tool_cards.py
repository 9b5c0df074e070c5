"""Tool calls appear as one-line cards that expand to show arguments and result; failures open by themselves."""

from __future__ import annotations

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.tool_card import ToolCard
from tests.support.model_server import text, tool_call
from tests.tui.conftest import SIZE, first, type_and_send, wait_for


async def _idle(pilot, app) -> None:
    await wait_for(pilot, lambda: not app.chat.runs and app.chat.status.state != "thinking", what="run end")


async def test_tool_card_appears_and_expands(claw_env, console) -> None:
    claw_env.server.script(tool_call("read", {"path": "SOUL.md"}, text="Let me look."), text("You are Testy."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "who am I?")
        card = await wait_for(pilot, lambda: first(app.chat.conversation, ToolCard), what="a tool card")
        await _idle(pilot, app)
        assert card.tool_name == "read" and card.status == "ok"
        assert card.args == {"path": "SOUL.md"}
        assert card.elapsed is not None
        assert not card.expanded and not card.query_one(".body").display
        header = str(card.query_one(".header").render())
        assert "✓" in header and "read" in header and "SOUL.md" in header

        await pilot.press("ctrl+o")
        assert card.expanded and card.query_one(".body").display
        body = str(card.query_one(".body").render())
        assert '"path": "SOUL.md"' in body and "You are Testy" in body
        await pilot.press("ctrl+o")
        assert not card.expanded

        # Text before and after the tool round are separate messages, in order around the card.
        children = list(app.chat.conversation.children)
        kinds = [type(w).__name__ for w in children]
        assert kinds == ["Notice", "UserMessage", "AssistantMessage", "ToolCard", "AssistantMessage"]
        assert [m.text for m in app.chat.conversation.query(AssistantMessage)] == ["Let me look.", "You are Testy."]

        card.focus()
        await pilot.press("enter")
        assert card.expanded


async def test_failed_tool_call_opens_by_itself(claw_env, console) -> None:
    claw_env.server.script(tool_call("read", {"path": "../../etc/passwd"}), text("I cannot read that."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "read the password file")
        card = await wait_for(pilot, lambda: first(app.chat.conversation, ToolCard), what="a tool card")
        await _idle(pilot, app)
        assert card.status == "error" and card.expanded
        assert "✗" in str(card.query_one(".header").render())
        assert "path escapes workspace" in str(card.query_one(".body").render())
