"""Esc aborts the running turn (the partial reply stays, marked); messages sent meanwhile queue, then run."""

from __future__ import annotations

import asyncio

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.user_message import UserMessage
from tests.gateway.conftest import write_config
from tests.support.model_server import hang, slow, text
from tests.tui.conftest import SIZE, first, type_and_send, wait_for


async def _reply_streaming(pilot, app, message: str, part: str) -> AssistantMessage:
    """Send `message` and wait until its reply shows `part` (the scripted model then keeps the run going)."""
    await type_and_send(pilot, message)
    reply = await wait_for(pilot, lambda: first(app.chat.conversation, AssistantMessage), what="reply")
    await wait_for(pilot, lambda: part in reply.text, what="the partial text")
    return reply


async def test_escape_aborts_mid_stream_and_keeps_the_partial_reply(claw_env, console) -> None:
    claw_env.server.script(hang("The first half of a long answer"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        message = await _reply_streaming(pilot, app, "tell me everything", "long answer")
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
    # Half a second a word: the second message (one Enter, not typed key by key) lands while the first streams,
    # even on a loaded machine.
    claw_env.server.script(slow(first_reply, 0.5), text("Second answer."))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "first question")
        await wait_for(pilot, lambda: app.chat.status.state == "streaming", what="the first reply streaming")
        app.chat.prompt.input.set_text("second question")
        await pilot.press("enter")
        queued = app.chat.prompt.queued
        await wait_for(pilot, lambda: queued.count == 1, what="the second message queued")
        assert app.chat.status.queued == 1 and "1 queued" in app.chat.status.plain
        assert "second question" in str(queued.query_one(".queued").render())
        # Not in the conversation yet: it has not run.
        assert [m.text for m in app.chat.conversation.query(UserMessage)] == ["first question"]

        await wait_for(pilot, lambda: not app.chat.runs and queued.count == 0, what="both runs")
        assert [m.text for m in app.chat.conversation.query(UserMessage)] == ["first question", "second question"]
        assert [m.text for m in app.chat.conversation.query(AssistantMessage)] == [first_reply, "Second answer."]
        assert app.chat.status.queued == 0

    second = claw_env.server.chat_requests[1].messages
    assert second[-1] == {"role": "user", "content": "second question"}
    assert any(m.get("content") == first_reply for m in second)


def _footer_keys(app) -> dict[str, str]:
    """What the chat screen's footer shows now: key → description."""
    return {key: active.binding.description for key, active in app.chat.active_bindings.items() if active.binding.show}


async def test_escape_with_the_popup_open_closes_it_and_aborts_in_one_press(claw_env, console) -> None:
    claw_env.server.script(hang("Still going"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        assert "escape" not in _footer_keys(app)  # idle, no popup: Esc does nothing, the footer says nothing
        message = await _reply_streaming(pilot, app, "go on", "going")
        assert _footer_keys(app)["escape"] == "Abort"
        app.chat.prompt.input.set_text("/he")
        await wait_for(pilot, lambda: app.chat.prompt.popup.is_open, what="the popup")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.chat.runs, what="the run to end")
        assert not app.chat.prompt.popup.is_open
        assert "aborted" in str(message.query_one(".note").render())


async def test_escape_before_the_run_starts_aborts_it(claw_env, console) -> None:
    # One global slot, held by another session's turn: the console's run is accepted and waits for it.
    write_config(claw_env.home, "[agents.defaults]\nmaxConcurrent = 1\n")
    claw_env.server.script(hang("other session"), text("never asked"))
    built = console()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        other = await built.client.run("hold the slot", session_key="agent:main:other")
        await claw_env.server.wait_for_requests_async(1, timeout=30)
        await type_and_send(pilot, "mine")
        view = await wait_for(pilot, lambda: next(iter(app.chat.runs.values()), None), what="the run accepted")
        assert not view.started
        assert _footer_keys(app)["escape"] == "Abort"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not app.chat.runs, what="the waiting run to end")
        assert view.outcome == "aborted" and not view.started
        await built.client.call("agent.abort", runId=other.run_id)
    await asyncio.sleep(0.2)
    assert [r.messages[-1]["content"] for r in claw_env.server.chat_requests] == ["hold the slot"]


async def test_ctrl_c_aborts_a_running_turn_and_clears_when_idle(claw_env, console) -> None:
    claw_env.server.script(hang("Half of it"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        message = await _reply_streaming(pilot, app, "talk", "Half")
        app.chat.prompt.input.set_text("a draft")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.chat.runs, what="the run to end")
        assert "aborted" in str(message.query_one(".note").render())
        assert app.chat.prompt.input.text == "a draft"  # aborting keeps what is typed
        assert app.is_running
        await pilot.press("ctrl+c")
        assert app.chat.prompt.input.text == ""
        assert app.is_running
