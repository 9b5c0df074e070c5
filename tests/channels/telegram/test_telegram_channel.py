"""Telegram end to end against the fake Bot API: polling, normalisation, session keys, dedupe, own messages,
access control (pairing, allowlists, groups, mentions), commands, splitting, and the persisted offset."""

from __future__ import annotations

import asyncio
import json
import urllib.request

from tests.channels.conftest import Start, eventually, telegram_config
from tests.channels.fakes import BOT_ID, BOT_USERNAME, FakeTelegram, group_message, post, private_message
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text

CHAT = "/v1/chat/completions"


def sent(fake: FakeTelegram) -> list[dict]:
    return [c.params for c in fake.calls_of("sendMessage")]


async def polled_past(fake: FakeTelegram, update_id: int) -> None:
    """Wait for a getUpdates asking for updates after `update_id`: the poller has stored the batch that held it
    (messages and offset commit together) and handed it to the processor, so `settled()` accounts for it."""
    await eventually(
        lambda: any(c.params["offset"] > update_id for c in fake.calls_of("getUpdates")),
        what=f"a poll past update {update_id}",
    )


async def test_a_private_message_from_an_allowed_sender_is_answered(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("Hello **Ada** <3"))
    await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))
    telegram.push(private_message("hi there", user_id=42))
    (reply,) = await eventually(lambda: sent(telegram), what="the reply")
    assert reply == {"chat_id": 42, "text": "Hello <b>Ada</b> &lt;3", "parse_mode": "HTML"}
    (request,) = claw_env.server.chat_requests
    assert request.messages[-1]["content"] == "hi there"  # a sender's own words are not wrapped


async def test_session_keys_follow_dm_scope_groups_and_topics(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    config = telegram_config(telegram.api_base, allowFrom=[42, 43], groupPolicy="open", requireMention=False)
    ch = await start_channels('[session]\ndmScope = "per-channel-peer"\n' + config)
    telegram.push(private_message("one", user_id=42))
    telegram.push(private_message("two", user_id=43))
    telegram.push(group_message("three", chat_id=-100555, user_id=42))
    telegram.push(group_message("four", chat_id=-100555, user_id=43, thread_id=7))
    await eventually(lambda: len(sent(telegram)) == 4, what="four replies")
    keys = {json.loads(r["ctx"])["body"]: r["session_key"] for r in ch.rows("channel_inbox")}
    assert keys == {
        "one": "agent:main:telegram:direct:42",
        "two": "agent:main:telegram:direct:43",
        "three": "agent:main:telegram:group:-100555",
        "four": "agent:main:telegram:group:-100555:thread:7",
    }
    replies = {(r["chat_id"], r.get("message_thread_id")) for r in sent(telegram)}
    assert replies == {(42, None), (43, None), (-100555, None), (-100555, 7)}
    in_groups = [r for r in sent(telegram) if r["chat_id"] < 0]
    assert all(r["reply_parameters"]["allow_sending_without_reply"] for r in in_groups)


async def test_under_the_default_dm_scope_direct_messages_share_the_main_session(
    start_channels: Start, telegram: FakeTelegram
) -> None:
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))
    telegram.push(private_message("hello", user_id=42))
    await eventually(lambda: sent(telegram), what="the reply")
    assert ch.rows("channel_inbox")[0]["session_key"] == "agent:main:main"


async def test_a_redelivered_update_runs_once_and_the_bots_own_messages_are_ignored(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))
    update = private_message("once please", user_id=42, message_id=77)
    telegram.push(update)
    await eventually(lambda: sent(telegram), what="the reply")
    telegram.push(update)  # Telegram delivering the same message again, under a new update id
    last = telegram.push(private_message("from myself", user_id=BOT_ID, is_bot=True))
    await polled_past(telegram, last)
    await ch.settled()
    assert len(claw_env.server.chat_requests) == 1 and len(sent(telegram)) == 1
    assert [r["status"] for r in ch.rows("channel_inbox")] == ["done"]


async def test_pairing_end_to_end(start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv) -> None:
    ch = await start_channels(telegram_config(telegram.api_base))
    telegram.push(private_message("let me in", user_id=99, first_name="Eve"))
    (reply,) = await eventually(lambda: sent(telegram), what="the pairing code")
    telegram.push(private_message("hello?", user_id=99))  # a second message sends no second code
    await eventually(lambda: len(ch.rows("channel_inbox")) == 2 and ch.rows("channel_inbox")[1]["status"] != "pending")
    assert len(sent(telegram)) == 1 and claw_env.server.chat_requests == []
    (pending,) = (await ch.call("pairing.list"))["pending"]
    assert pending["senderId"] == "99" and pending["senderName"] == "Eve"
    assert f"claw pairing approve telegram {pending['code']}" in reply["text"]
    assert len(pending["code"]) == 8 and not set(pending["code"]) & set("0O1I")
    approved = await ch.call("pairing.approve", channel="telegram", code=pending["code"].lower())
    assert approved["senderId"] == "99"
    telegram.push(private_message("now?", user_id=99))
    await eventually(lambda: len(sent(telegram)) == 2, what="a real answer")
    assert len(claw_env.server.chat_requests) == 1
    assert (await ch.call("pairing.list"))["approved"][0]["senderId"] == "99"


async def test_at_most_three_codes_are_pending(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    ch = await start_channels(telegram_config(telegram.api_base))
    for user in (1, 2, 3, 4):
        last = telegram.push(private_message(f"hi from {user}", user_id=user))
    await polled_past(telegram, last)
    await ch.settled()
    assert [r["status"] for r in ch.rows("channel_inbox")] == ["ignored"] * 4
    assert len((await ch.call("pairing.list"))["pending"]) == 3
    assert len(sent(telegram)) == 3 and claw_env.server.chat_requests == []
    assert ch.rows("channel_inbox")[3]["outcome"] == "pairing: too many pending"


async def test_an_empty_allowlist_denies_everyone(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    ch = await start_channels(telegram_config(telegram.api_base, dmPolicy="allowlist"))
    update_id = telegram.push(private_message("hello", user_id=42))
    await polled_past(telegram, update_id)
    await ch.settled()
    (row,) = ch.rows("channel_inbox")
    assert row["status"] == "ignored" and row["outcome"] == "sender is not on the allowlist"
    assert sent(telegram) == [] and claw_env.server.chat_requests == []
    assert (await ch.call("pairing.list"))["pending"] == []


async def test_groups_need_an_allowlisted_group_and_a_mention(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    config = telegram_config(telegram.api_base, allowFrom=[42]) + '[channels.telegram.groups."-100777"]\n'
    ch = await start_channels(config)
    telegram.push(group_message("no mention", user_id=50))
    telegram.push(group_message("other group", chat_id=-100888, user_id=50, mention=True))
    telegram.push(group_message("/reset", user_id=50))  # a command from a non-allowlisted member, no mention
    telegram.push(group_message("hello bot", user_id=50, mention=True))
    last = telegram.push(group_message("reply to you", user_id=51, reply_to_bot=True))
    await polled_past(telegram, last)
    await ch.settled()
    assert len(sent(telegram)) == 2
    prompts = [r.messages[-1]["content"] for r in claw_env.server.chat_requests]
    assert prompts == ["hello bot", "reply to you"]  # the mention is stripped from the text
    rows = ch.rows("channel_inbox")
    assert [r["status"] for r in rows] == ["ignored"] * 3 + ["done"] * 2
    reasons = [r["outcome"] for r in rows][:3]
    assert reasons == ["the bot was not mentioned", "group -100888 is not allowlisted", "the bot was not mentioned"]


async def test_slash_commands_run_only_for_authorised_senders(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    config = telegram_config(telegram.api_base, allowFrom=[42], requireMention=False) + (
        '[channels.telegram.groups."-100777"]\n'
    )
    await start_channels(config)
    telegram.push(group_message(f"/status@{BOT_USERNAME}", user_id=42))  # the owner: a command
    (status,) = await eventually(lambda: sent(telegram), what="the status reply")
    assert "Session agent:main:telegram:group:-100777" in status["text"]
    assert claw_env.server.chat_requests == []
    telegram.push(group_message("/status", user_id=50))  # anyone else: plain text for the model
    await eventually(lambda: len(sent(telegram)) == 2, what="the model's answer")
    (request,) = claw_env.server.chat_requests
    assert request.messages[-1]["content"] == "/status"


async def test_long_replies_are_split_at_4096_on_paragraph_boundaries(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    paragraphs = [f"Paragraph {i}: " + "lorem ipsum " * 60 for i in range(20)]
    claw_env.server.script(text("\n\n".join(paragraphs)))
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))
    telegram.push(private_message("write a lot", user_id=42))
    await eventually(lambda: len(sent(telegram)) >= 4, what="the parts")
    await ch.settled()  # every part sent: none more is coming
    parts = [r["text"] for r in sent(telegram)]
    assert len(parts) == 4 and all(len(p) <= 4096 for p in parts)
    assert "\n\n".join(parts) == "\n\n".join(paragraphs).strip()  # cut only between paragraphs, in order


async def test_the_offset_survives_a_restart(start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv) -> None:
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))
    last = telegram.push(private_message("before restart", user_id=42))
    await eventually(lambda: sent(telegram), what="the reply")
    await ch.gateway.close()
    polls = len(telegram.calls_of("getUpdates"))
    ch = await start_channels(telegram_config(telegram.api_base, allowFrom=[42]))
    await eventually(lambda: len(telegram.calls_of("getUpdates")) > polls, what="a poll")
    assert telegram.calls_of("getUpdates")[polls].params["offset"] == last + 1
    for _ in range(200):
        (account,) = (await ch.call("channels.status"))["accounts"]
        if account["lastPollAt"]:
            break
        await asyncio.sleep(0.05)
    assert account["offset"] == last + 1 and account["state"] == "running" and account["lastPollAt"]
    assert len(claw_env.server.chat_requests) == 1


async def test_webhook_mode_checks_the_secret_token_and_processes_a_duplicate_once(
    start_channels: Start, telegram: FakeTelegram, claw_env: ClawEnv
) -> None:
    secret = "tg-secret_0123456789"
    config = telegram_config(telegram.api_base, allowFrom=[42], mode="webhook", webhookSecret=secret,
                             webhookUrl="https://bot.example/telegram/default")  # fmt: skip
    ch = await start_channels(config)
    (registered,) = await eventually(lambda: telegram.calls_of("setWebhook"), what="setWebhook")
    assert registered.params["secret_token"] == secret
    assert registered.params["url"] == "https://bot.example/telegram/default"
    url = f"{ch.http_url}/telegram/default"
    update = json.dumps({"update_id": 555, **private_message("via webhook", user_id=42)}).encode()

    def request(token: str | None, body: bytes = update, to: str = url) -> urllib.request.Request:
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["X-Telegram-Bot-Api-Secret-Token"] = token
        return urllib.request.Request(to, data=body, method="POST", headers=headers)

    assert (await asyncio.to_thread(post, request(None)))[0] == 401
    assert (await asyncio.to_thread(post, request("wrong")))[0] == 401
    assert await asyncio.to_thread(post, request(secret)) == (200, {"ok": True, "status": "accepted"})
    assert await asyncio.to_thread(post, request(secret)) == (200, {"ok": True, "status": "duplicate"})
    no_id = json.dumps(private_message("x", user_id=42)).encode()
    assert (await asyncio.to_thread(post, request(secret, no_id)))[0] == 400
    await eventually(lambda: sent(telegram), what="the reply")
    await ch.settled()  # the duplicate was stored once: nothing more is coming of it
    assert len(claw_env.server.chat_requests) == 1 and len(sent(telegram)) == 1
    assert telegram.calls_of("getUpdates") == []
    assert (await asyncio.to_thread(post, request(secret, to=f"{ch.http_url}/telegram/nope")))[0] == 404
