"""Normalising Telegram updates: what counts as a message, mentions (UTF-16 offsets), ids and reply targets."""

from __future__ import annotations

import pytest

from claw.channels.telegram.adapter import TelegramAdapter
from claw.channels.telegram.wire import BotIdentity, TgUpdate, to_inbound
from claw.config import ConfigFile
from tests.channels.fakes import BOT_ID, BOT_USERNAME, group_message, private_message

BOT = BotIdentity(BOT_ID, BOT_USERNAME)


def update(body: dict, update_id: int = 1) -> TgUpdate:
    return TgUpdate.model_validate({"update_id": update_id, **body})


def test_a_mention_after_an_emoji_is_found_by_its_utf16_offset_and_stripped() -> None:
    raw = group_message(f"👋 @{BOT_USERNAME} status please", chat_id=-100, user_id=5)
    raw["message"]["entities"] = [{"type": "mention", "offset": 3, "length": len(BOT_USERNAME) + 1}]
    found = to_inbound(update(raw), "default", BOT)
    assert found is not None and found.meta["mentioned"] is True
    assert found.ctx.body == "👋 status please" and found.ctx.raw_body.startswith("👋 @")
    assert found.ctx.chat_type == "group" and found.ctx.group_id == "-100" and found.ctx.sender_id == "5"
    assert found.dedupe_key == f"telegram|default|-100|{raw['message']['message_id']}"
    assert found.reply_to == {"chat_id": -100, "message_thread_id": None,
                              "reply_to_message_id": raw["message"]["message_id"]}  # fmt: skip


def test_only_new_messages_from_people_count() -> None:
    assert to_inbound(update({"edited_message": private_message("x")["message"]}), "default", BOT) is None
    assert to_inbound(update(private_message("from a bot", is_bot=True)), "default", BOT) is None
    post = private_message("channel post")
    post["message"]["chat"]["type"] = "channel"
    assert to_inbound(update(post), "default", BOT) is None
    photo = private_message("")
    del photo["message"]["text"]
    assert to_inbound(update(photo), "default", BOT) is None
    photo["message"]["caption"] = "look at this"
    found = to_inbound(update(photo), "default", BOT)
    assert found is not None and found.ctx.body == "look at this" and found.ctx.chat_type == "direct"


def test_a_topic_message_is_a_thread_and_a_plain_reply_thread_is_not() -> None:
    found = to_inbound(update(group_message("hi", thread_id=12, mention=True)), "default", BOT)
    assert found is not None and found.ctx.thread_id == "12" and found.conversation.endswith("|12")
    raw = group_message("hi", mention=True)
    raw["message"]["message_thread_id"] = 99  # a reply chain in a non-forum group, not a topic
    found = to_inbound(update(raw), "default", BOT)
    assert found is not None and found.ctx.thread_id is None


def test_without_knowing_the_bot_nothing_counts_as_a_mention() -> None:
    found = to_inbound(update(group_message("hi", mention=True)), "default", None)
    assert found is not None and found.meta["mentioned"] is False


def test_the_adapter_refuses_malformed_updates() -> None:
    account = ConfigFile.model_validate({"channels": {"telegram": {"botToken": "t"}}}).channels.telegram
    adapter = TelegramAdapter("default", account.effective_accounts()["default"])
    with pytest.raises(ValueError, match="update_id"):
        adapter.normalize({"message": {}})
    with pytest.raises(ValueError, match="message.chat"):
        adapter.normalize({"update_id": 3, "message": {"message_id": 1}})
    assert adapter.normalize({"update_id": 4}) == []
