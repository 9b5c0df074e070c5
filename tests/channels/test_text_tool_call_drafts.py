"""A channel's streamed draft never shows tool markup: a model that writes its tool call as text
(`<tool_call>…</tool_call>`, streamed slowly enough to be edited into the draft) has its tool run, and the
placeholder's edits and the final message hold only the reply's words."""

from __future__ import annotations

from tests.channels.conftest import Start, eventually, telegram_config
from tests.channels.fakes import FakeTelegram, private_message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow
from tests.support.stream_shapes import shaped, split_text


async def test_tool_markup_never_reaches_the_draft(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    (claw_env.home / "workspace" / "note.md").write_text("SECRET-42\n", encoding="utf-8")
    words = "Let me check the note for you. " * 3
    markup = '<tool_call>{"name": "read", "arguments": {"path": "note.md"}}</tool_call>'
    claw_env.server.script(
        shaped(*split_text(words + markup, 4), delay_per_chunk=0.05),  # ~40 chunks over ~2 s
        slow("The note says SECRET-42.", delay_per_chunk=0.05, chunk=3),
    )
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42], streaming=True))
    telegram.push(private_message("what is in the note?", user_id=42))
    await eventually(lambda: ch.rows("channel_outbox") and ch.rows("channel_outbox")[-1]["status"] == "sent")

    shown = [c.params["text"] for c in telegram.calls_of("sendMessage") + telegram.calls_of("editMessageText")]
    assert len(shown) >= 2  # the draft was edited while the markup streamed
    assert not [t for t in shown if "tool_call" in t or '"name"' in t or "&lt;" in t], shown
    assert shown[-1].endswith("The note says SECRET-42.")
    sent = claw_env.server.chat_requests[1].messages[-1]
    assert sent["role"] == "tool" and "SECRET-42" in sent["content"]
