"""The model's reasoning in the console: a collapsed "thinking" block per model call, apart from the reply,
in the events pane as one line, and back from the transcript when a session is loaded."""

from __future__ import annotations

from dataclasses import replace

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.thinking_block import ThinkingBlock
from claw.tui.widgets.events.events_pane import EventsPane
from tests.support.model_server import thinking
from tests.support.turns import run_turn
from tests.tui.conftest import SIZE, first, say, screen_text, type_and_send, wait_for

REASONING = "The user says hi. PRIVATE-NOTE: greet them back briefly."


async def test_reasoning_shows_in_a_collapsed_block_above_the_reply(claw_env, console) -> None:
    claw_env.server.script(thinking(REASONING, "Hello there!"))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await say(pilot, app, claw_env.server, "hi")
        block = await wait_for(pilot, lambda: first(app.chat.conversation, ThinkingBlock), what="a thinking block")
        await wait_for(pilot, lambda: block.finished, what="the reasoning to end")
        assert block.text == REASONING
        assert not block.expanded and not block.query_one(".body").display
        assert "PRIVATE-NOTE" not in screen_text(app)  # collapsed: only its header line is on screen
        header = str(block.query_one(".header").render())
        assert "thought for" in header and f"{len(REASONING)} chars" in header and block.seconds is not None

        (reply,) = app.chat.conversation.query(AssistantMessage)
        assert reply.text == "Hello there!"
        kinds = [type(w).__name__ for w in app.chat.conversation.children]
        assert kinds.index("ThinkingBlock") == kinds.index("AssistantMessage") - 1

        await pilot.click(ThinkingBlock)
        assert block.expanded and block.query_one(".body").display
        await wait_for(pilot, lambda: "PRIVATE-NOTE" in screen_text(app), what="the reasoning on screen")
        assert REASONING in str(block.query_one(".body").render())
        block.focus()
        await pilot.press("enter")
        assert not block.expanded


async def test_each_model_call_gets_its_own_block_and_the_events_pane_one_line(claw_env, console) -> None:
    claw_env.server.script(
        thinking("I should read SOUL.md first.", calls=[("read", {"path": "SOUL.md"})]),
        thinking("Now I know who I am.", "You are Testy."),
    )
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+t")
        await type_and_send(pilot, "who am I?")
        await wait_for(pilot, lambda: len(claw_env.server.chat_requests) == 2 and not app.chat.runs, what="2 calls")
        pane = app.chat.query_one(EventsPane)
        await wait_for(pilot, lambda: any(label == "end" for _, label, _ in pane.entries), what="the end line")
        blocks = list(app.chat.conversation.query(ThinkingBlock))
        assert [b.text for b in blocks] == ["I should read SOUL.md first.", "Now I know who I am."]
        assert all(b.finished and not b.expanded for b in blocks)
        kinds = [type(w).__name__ for w in app.chat.conversation.children]
        assert kinds[-4:] == ["ThinkingBlock", "ToolCard", "ThinkingBlock", "AssistantMessage"]

        labels = [label for _, label, _ in pane.entries]
        assert labels.count("thinking") == 1 and "" not in labels  # one line, not one per reasoning delta
        assert " thinking" in pane.entries[labels.index("end")][2]  # the end line counts the reasoning deltas


async def test_a_loaded_session_shows_its_reasoning_collapsed(claw_env, console, local_clients) -> None:
    claw_env.server.script(thinking(REASONING, "Hello there!"))
    await run_turn(local_clients(), "agent:main:main", "hi")
    app = console(session_key="agent:main:main").app
    async with app.run_test(size=SIZE) as pilot:
        reply = await wait_for(pilot, lambda: first(app.chat.conversation, AssistantMessage), what="the history")
        block = first(app.chat.conversation, ThinkingBlock)
        assert block is not None and block.text == REASONING and block.finished and not block.expanded
        assert block.seconds is None and "thought ·" in str(block.query_one(".header").render())  # no timing kept
        assert reply.text == "Hello there!"
        assert "PRIVATE-NOTE" not in screen_text(app)


async def test_over_websocket_the_block_is_the_same(claw_env, remote_console) -> None:
    claw_env.server.script(thinking(REASONING, "Hello there!"))
    app = (await remote_console()).app
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.status.model == "test-model", what="connected")
        await say(pilot, app, claw_env.server, "hi")
        block = await wait_for(pilot, lambda: first(app.chat.conversation, ThinkingBlock), what="a thinking block")
        await wait_for(pilot, lambda: block.finished, what="the reasoning to end")
        assert block.text == REASONING and not block.expanded
        assert [m.text for m in app.chat.conversation.query(AssistantMessage)] == ["Hello there!"]


async def test_the_block_says_thinking_while_the_reasoning_streams(claw_env, console) -> None:
    claw_env.server.script(replace(thinking(REASONING, "Hello there!"), delay_per_chunk=0.1))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "hi")
        block = await wait_for(pilot, lambda: first(app.chat.conversation, ThinkingBlock), what="a thinking block")
        await wait_for(pilot, lambda: "thinking…" in screen_text(app), what="the streaming header")
        assert not block.finished and not first(app.chat.conversation, AssistantMessage)
        await wait_for(pilot, lambda: block.finished and "thought for" in screen_text(app), what="the end of it")
        await wait_for(pilot, lambda: not app.chat.runs, what="the run's end")
        assert block.text == REASONING
