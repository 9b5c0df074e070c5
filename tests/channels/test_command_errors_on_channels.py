"""A slash command's error on a channel: the sender gets the text as a reply, like any command's answer."""

from __future__ import annotations

from tests.channels.conftest import Start, eventually, telegram_config
from tests.channels.fakes import FakeTelegram, private_message
from tests.support.fixtures import ClawEnv


async def test_an_unknown_command_is_answered_with_the_error_text(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))
    telegram.push(private_message("/stauts", user_id=42))
    (reply,) = await eventually(lambda: [c.params for c in telegram.calls_of("sendMessage")], what="the reply")
    assert reply["chat_id"] == 42
    assert reply["text"] == "unknown command /stauts (did you mean /status?) — /help lists them"
    assert claw_env.server.chat_requests == []
    await ch.settled()
    assert [r["status"] for r in ch.rows("channel_inbox")] == ["done"]
