"""Esc aborts the running turn (the partial reply stays, marked); messages sent meanwhile queue, then run."""

from __future__ import annotations

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.user_message import UserMessage
from tests.support.model_server import hang, slow, text
from tests.tui.conftest import SIZE, first, type_and_send, wait_for


async def test_escape_aborts_mid_stream_and_keeps_the_partial_reply(claw_env, console) -> None:
    claw_env.server.script(hang("The first half of a long answer"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "tell me everything")
        message = await wait_for(pilot, lambda: first(app.chat.conversation, AssistantMessage), what="reply")
        await wait_for(pilot, lambda: "long answer" in message.text, what="the partial text")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.chat.runs, what="the run to end")
        assert message.text == "The first half of a long answer"
        assert "aborted" in str(message.query_one(".note").render())
        assert message.query_one(".note").display
        assert app.chat.status.state == "idle"

    history = await console().client.call("chat.history")
    last = history["messages"][-1]
    assert last["role"] == "assistant" and last["aborted"] is True


async def test_message_sent_during_a_run_is_queued_then_runs(claw_env, console) -> None:
    first_reply = "one two three four five six seven eight nine ten"
    claw_env.server.script(slow(first_reply, 0.1), text("Second answer."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "first question")
        await wait_for(pilot, lambda: app.chat.status.state == "streaming", what="the first reply streaming")
        await type_and_send(pilot, "second question")
        queued = app.chat.prompt.queued
        await wait_for(pilot, lambda: queued.count == 1, what="the second message queued")
        assert app.chat.status.queued == 1 and "1 queued" in app.chat.status.plain
        assert "second question" in str(queued.query_one(".queued").render())
        # Not in the conversation yet: it has not run.
        assert [m.text for m in app.chat.conversation.query(UserMessage)] == ["first question"]

        await wait_for(pilot, lambda: not app.chat.runs and queued.count == 0, timeout=20, what="both runs")
        assert [m.text for m in app.chat.conversation.query(UserMessage)] == ["first question", "second question"]
        assert [m.text for m in app.chat.conversation.query(AssistantMessage)] == [first_reply, "Second answer."]
        assert app.chat.status.queued == 0

    second = claw_env.server.chat_requests[1].messages
    assert second[-1] == {"role": "user", "content": "second question"}
    assert any(m.get("content") == first_reply for m in second)
