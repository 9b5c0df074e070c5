"""Edit-streaming: one placeholder, edited at most once a second while the reply is written, then the final text."""

from __future__ import annotations

from tests.channels.conftest import Start, eventually, telegram_config
from tests.channels.fakes import FakeTelegram, private_message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import slow, text


async def test_a_streamed_reply_edits_one_placeholder_at_most_once_a_second(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    reply = "**Done**: " + " ".join(f"w{i}" for i in range(80))
    claw_env.server.script(slow(reply, delay_per_chunk=0.05, chunk=4))  # ~90 deltas over ~4.5 s
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42], streaming=True))
    telegram.push(private_message("stream it", user_id=42))
    await eventually(lambda: ch.rows("channel_outbox") and ch.rows("channel_outbox")[0]["status"] == "sent")
    (placeholder,) = telegram.calls_of("sendMessage")
    edits = telegram.calls_of("editMessageText")
    previews, final = edits[:-1], edits[-1]
    assert final.params["text"] == "<b>Done</b>: " + reply.split(": ", 1)[1]
    assert final.params["parse_mode"] == "HTML"
    assert {e.params["message_id"] for e in edits} == {int(ch.rows("channel_outbox")[0]["edit_message_id"])}
    pushes = [placeholder.at, *(e.at for e in previews)]
    gaps = [b - a for a, b in zip(pushes, pushes[1:], strict=False)]
    assert len(previews) >= 2 and min(gaps) >= 0.95, gaps  # throttled: at most once per second
    assert len(previews) <= 7  # ~4.5 s of writing: never one edit per delta
    assert all(e.params["text"].endswith(" …") for e in previews)
    assert len(previews[-1].params["text"]) > len(previews[0].params["text"])


async def test_a_quick_reply_without_deltas_before_the_end_is_a_plain_message(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("short"))
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42], streaming=True))
    telegram.push(private_message("quick", user_id=42))
    await eventually(lambda: ch.rows("channel_outbox") and ch.rows("channel_outbox")[0]["status"] == "sent")
    texts = [c.params["text"] for c in telegram.calls_of("sendMessage")]
    edits = [c.params["text"] for c in telegram.calls_of("editMessageText")]
    assert (texts + edits)[-1] == "short"  # a placeholder may have been shown; the final text is what stays
    assert len(texts) == 1
