"""The model's reasoning never reaches a channel: not in an edit-streamed preview, not in the final reply."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from tests.channels.conftest import HOOK_SECRET, Start, eventually, telegram_config, webhook_config
from tests.channels.fakes import FakeTelegram, ReplyReceiver, post_signed, private_message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import thinking

SECRET = "HIDDEN-REASONING"
REASONING = " ".join(f"{SECRET}-{i}" for i in range(40))


async def test_a_streamed_telegram_reply_previews_and_sends_only_the_reply(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    reply = "The answer: " + " ".join(f"w{i}" for i in range(30))
    # ~2 s of reasoning, then ~1.5 s of reply: long enough for the once-a-second previews to go out in both.
    claw_env.server.script(replace(thinking(REASONING, reply), delay_per_chunk=0.05))
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42], streaming=True))
    telegram.push(private_message("think hard", user_id=42))
    await eventually(lambda: ch.rows("channel_outbox") and ch.rows("channel_outbox")[0]["status"] == "sent")
    sent = telegram.calls_of("sendMessage") + telegram.calls_of("editMessageText")
    assert sent and telegram.calls_of("editMessageText")[-1].params["text"] == reply
    assert not [c.params["text"] for c in sent if SECRET in c.params["text"]]
    transcript = await ch.call("chat.history", sessionKey=ch.rows("channel_inbox")[0]["session_key"])
    (answer,) = [m for m in transcript["messages"] if m.get("role") == "assistant"]
    assert answer["content"] == reply and answer["thinking"] == REASONING  # kept, apart, in the record only


async def test_a_webhook_reply_carries_only_the_reply(
    start_channels: Start, receiver: ReplyReceiver, claw_env: ClawEnv
) -> None:
    claw_env.server.script(thinking(REASONING, "Just this."))
    ch = await start_channels(webhook_config(receiver.reply_url))
    message = {"eventId": "evt-1", "conversationId": "conv-1", "senderId": "user-9", "text": "think"}
    status, _ = await asyncio.to_thread(post_signed, ch.hook_url(), HOOK_SECRET, message)
    assert status == 200
    (got,) = await eventually(receiver.unique, what="the reply")
    assert got["text"] == "Just this."
    assert all(SECRET not in r.raw.decode() for r in receiver.received)
