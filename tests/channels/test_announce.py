"""An automation delivering to `telegram:<chatId>[:<topicId>]` goes through the channels' outbox."""

from __future__ import annotations

from tests.channels.conftest import Start, eventually, telegram_config
from tests.channels.fakes import FakeTelegram
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text


async def test_an_automation_reply_is_delivered_to_a_telegram_topic_through_the_outbox(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("Your **brief**."))
    ch = await start_channels(telegram_config(telegram.api_base))
    job = await ch.call("automations.add", every="1h", message="brief me", deliver="telegram:-100321:9")
    run = await ch.call("automations.run", id=job["id"], wait=True)
    assert run["deliveryStatus"] == "queued", run
    (sent,) = await eventually(lambda: telegram.calls_of("sendMessage"), what="the delivery")
    assert sent.params == {
        "chat_id": -100321,
        "message_thread_id": 9,
        "text": "Your <b>brief</b>.",
        "parse_mode": "HTML",
    }
    (row,) = ch.rows("channel_outbox")
    assert row["run_id"] == run["id"] and row["conversation"] == "telegram|default|-100321|9"


async def test_a_bad_target_is_a_failed_delivery_with_the_reason(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    ch = await start_channels(telegram_config(telegram.api_base))
    job = await ch.call("automations.add", every="1h", message="brief me", deliver="telegram:@someone")
    run = await ch.call("automations.run", id=job["id"], wait=True)
    assert run["deliveryStatus"] == "failed"
    assert run["deliveryError"] == "invalid telegram target '@someone': use <chatId> or <chatId>:<topicId>"
    assert ch.rows("channel_outbox") == []
