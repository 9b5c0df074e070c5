"""A reply streams into the conversation as Markdown and ends up complete."""

from __future__ import annotations

from claw.tui.widgets.conversation.assistant_message import AssistantMessage
from claw.tui.widgets.conversation.user_message import UserMessage
from tests.support.model_server import slow, text
from tests.tui.conftest import SIZE, first, screen_text, type_and_send, wait_for

REPLY = """Here is **the plan**:

1. read the notes
2. write a summary

```python
def answer() -> int:
    return 42
```

That is all."""


def drawn(app, *texts: str) -> bool:
    """Whether each of `texts` is on the screen now."""
    shown = screen_text(app)
    return all(text in shown for text in texts)


async def test_streamed_reply_appears_complete(claw_env, console) -> None:
    claw_env.server.script(slow(REPLY, 0.05))
    app = console().app
    async with app.run_test(size=SIZE) as pilot:
        states: list[str] = []
        app.chat.watch(app.chat.status, "state", lambda state: states.append(state), init=False)
        await wait_for(pilot, lambda: app.chat.prompt.catalog.get("model"), what="connected")
        await type_and_send(pilot, "make a plan")
        message = await wait_for(pilot, lambda: first(app.chat.conversation, AssistantMessage), what="reply")
        partial = await wait_for(pilot, lambda: message.text, what="the first words")
        assert partial != REPLY  # it arrives in pieces, not at the end
        await wait_for(pilot, lambda: not app.chat.runs, what="run end")
        assert states[:2] == ["thinking", "streaming"] and states[-1] == "idle"
        messages = app.chat.conversation.query(AssistantMessage)
        assert len(messages) == 1
        assert messages[0].text == REPLY
        assert [m.text for m in app.chat.conversation.query(UserMessage)] == ["make a plan"]
        await wait_for(pilot, lambda: drawn(app, "def answer() -> int:", "That is all."), what="the reply drawn")
        assert claw_env.server.last_request().messages[-1] == {"role": "user", "content": "make a plan"}


async def test_a_long_reply_is_cut_between_blocks_into_several_markdown_widgets(claw_env, console) -> None:
    paragraphs = [f"Paragraph {n}: " + "word " * 120 for n in range(12)]
    fence = "```python\n" + "\n".join(f"line_{n} = {n}" for n in range(200)) + "\n```"
    long_reply = "\n\n".join([*paragraphs[:6], fence, *paragraphs[6:]])
    claw_env.server.script(text(long_reply, chunk=400))
    built = console()
    app = built.app
    async with app.run_test(size=SIZE) as pilot:
        await type_and_send(pilot, "write a lot")
        await wait_for(pilot, lambda: not app.chat.runs and app.chat.conversation.query(AssistantMessage))
        pieces = list(app.chat.conversation.query(AssistantMessage))
        assert len(pieces) > 2
        assert "".join(p.text for p in pieces) == long_reply
        assert [p.has_class("-continuation") for p in pieces] == [False] + [True] * (len(pieces) - 1)
        fences = [p for p in pieces if p.markdown.query("MarkdownFence")]
        assert len(fences) == 1 and fence in fences[0].text  # the code block was never cut
        await wait_for(pilot, lambda: drawn(app, "Paragraph 11:"), what="the end of the reply drawn")

    app = built.app.__class__(built.client)  # the same session, loaded from history
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.chat.conversation.query(AssistantMessage), what="history")
        pieces = list(app.chat.conversation.query(AssistantMessage))
        assert len(pieces) > 2 and "".join(p.text for p in pieces) == long_reply
