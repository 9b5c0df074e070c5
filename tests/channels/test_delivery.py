"""The delivery worker against the fake Bot API: Retry-After, backoff, dead letters, retry, conversation order."""

from __future__ import annotations

from tests.channels.conftest import Start, eventually, telegram_config
from tests.channels.fakes import FakeTelegram, private_message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import RecordedRequest, text


def echo(request: RecordedRequest):  # noqa: ANN201
    return text(f"echo: {request.messages[-1]['content']}")


def sent_texts(fake: FakeTelegram) -> list[str]:
    return [c.params["text"] for c in fake.calls_of("sendMessage")]


async def test_retry_after_is_honoured(start_channels: Start, telegram: FakeTelegram) -> None:
    telegram.fail("sendMessage", 429, "Too Many Requests: retry after 1", retry_after=1)
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))
    telegram.push(private_message("hi", user_id=42))
    first, second = await eventually(lambda: (c := telegram.calls_of("sendMessage")) and len(c) >= 2 and c)
    assert second.at - first.at >= 0.99  # the configured backoff alone would be ~0.05 s
    await eventually(lambda: ch.rows("channel_outbox")[0]["status"] == "sent", what="sent")
    (row,) = ch.rows("channel_outbox")
    assert row["attempts"] == 0 and row["last_error"] is None  # reset once the part went out


async def test_server_errors_back_off_then_succeed(start_channels: Start, telegram: FakeTelegram) -> None:
    telegram.fail("sendMessage", 502, "Bad Gateway", times=2)
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))
    telegram.push(private_message("hi", user_id=42))
    await eventually(lambda: ch.rows("channel_outbox") and ch.rows("channel_outbox")[0]["status"] == "sent")
    calls = telegram.calls_of("sendMessage")
    assert len(calls) == 3
    gaps = [b.at - a.at for a, b in zip(calls, calls[1:], strict=False)]
    assert gaps[0] >= 0.02 and gaps[1] >= 0.04  # base 0.05 s: [0.025, 0.05] then [0.05, 0.1], plus jitter


async def test_a_permanent_error_is_a_dead_letter_at_once_and_retry_revives_it(
    start_channels: Start, telegram: FakeTelegram
) -> None:
    telegram.fail("sendMessage", 403, "Forbidden: bot was blocked by the user")
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))
    telegram.push(private_message("hi", user_id=42))
    await eventually(lambda: ch.rows("channel_outbox") and ch.rows("channel_outbox")[0]["status"] == "dead")
    await ch.settled()  # the worker has looked again since, and parked: a dead letter is not resent
    assert len(telegram.calls_of("sendMessage")) == 1
    (dead,) = await ch.call("outbox.list", dead=True)
    assert dead["lastError"] == "HTTP 403: Forbidden: bot was blocked by the user" and dead["attempts"] == 1
    retried = await ch.call("outbox.retry", id=dead["id"])
    assert retried["status"] == "queued" and retried["delivering"] is True
    await eventually(lambda: ch.rows("channel_outbox")[0]["status"] == "sent", what="sent after retry")
    await ch.settled()
    assert len(telegram.calls_of("sendMessage")) == 2
    assert await ch.call("outbox.list") == []


async def test_transient_errors_end_in_a_dead_letter_after_max_attempts(
    start_channels: Start, telegram: FakeTelegram
) -> None:
    telegram.fail("sendMessage", 502, "Bad Gateway", times=10)
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))  # maxAttempts = 4
    telegram.push(private_message("hi", user_id=42))
    await eventually(lambda: ch.rows("channel_outbox") and ch.rows("channel_outbox")[0]["status"] == "dead")
    await ch.settled()  # no fifth attempt: the worker has looked again since, and parked
    assert len(telegram.calls_of("sendMessage")) == 4
    (row,) = ch.rows("channel_outbox")
    assert row["attempts"] == 4 and row["last_error"] == "HTTP 502: Bad Gateway"


async def test_a_conversation_waits_for_its_failing_reply_while_others_go_on(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    claw_env.server.default = echo
    telegram.fail("sendMessage", 429, "Too Many Requests", retry_after=1, chat_id=42)
    await start_channels(telegram_config(telegram.api_base, allowFrom=[42, 43]))
    telegram.push(private_message("a1", user_id=42))
    telegram.push(private_message("a2", user_id=42))
    telegram.push(private_message("b1", user_id=43))
    await eventually(lambda: len(telegram.calls_of("sendMessage")) == 4, what="four sends")
    assert sent_texts(telegram) == ["echo: a1", "echo: b1", "echo: a1", "echo: a2"]
