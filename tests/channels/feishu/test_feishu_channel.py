"""Feishu end to end against the fake open platform: the event subscription's challenge, encrypted and signed
events answered as a reply to the right message, refusals (signature, token, timestamp), redelivery, group
mentions and reply chains, token refresh mid-conversation, rate-limit backoff and a long reply split in order."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.channels.conftest import Channels, Start, eventually
from tests.channels.fakes import post
from tests.channels.feishu_fake import (
    APP_ID,
    APP_SECRET,
    BOT_OPEN_ID,
    ENCRYPT_KEY,
    VERIFY_TOKEN,
    FakeFeishu,
    bot_mention,
    event_request,
    message_event,
)
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text


@pytest.fixture
def feishu() -> Iterator[FakeFeishu]:
    fake = FakeFeishu()
    fake.start()
    yield fake
    fake.stop()


def feishu_config(api: str, *, toml: str = "", **extra: Any) -> str:
    lines = [f'appId = "{APP_ID}"', f'appSecret = "{APP_SECRET}"', f'encryptKey = "{ENCRYPT_KEY}"',
             f'verificationToken = "{VERIFY_TOKEN}"', f'apiBaseUrl = "{api}"']  # fmt: skip
    lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    return "[channels.feishu]\n" + "\n".join([*lines, toml]) + "\n"


async def started(start_channels: Start, feishu: FakeFeishu, toml: str = "", **extra: Any) -> Channels:
    ch = await start_channels(feishu_config(feishu.url, toml=toml, **extra))
    await eventually(lambda: ch.manager.health("feishu", "default").state == "running", what="the bot identified")
    return ch


async def deliver(ch: Channels, payload: dict[str, Any], **kw: Any) -> tuple[int, dict[str, Any]]:
    return await asyncio.to_thread(post, event_request(f"{ch.http_url}/feishu/default", payload, **kw))


async def test_the_url_verification_challenge_is_answered_plain_and_encrypted(
    start_channels: Start, feishu: FakeFeishu
) -> None:
    ch = await started(start_channels, feishu)
    challenge = {"challenge": "ajls384kdjx98XX", "token": VERIFY_TOKEN, "type": "url_verification"}
    assert await deliver(ch, challenge, sign=False) == (200, {"challenge": "ajls384kdjx98XX"})
    wrong = {**challenge, "token": "guess"}
    assert (await deliver(ch, wrong, sign=False))[0] == 401


async def test_an_encrypted_signed_event_gets_one_reply_to_its_message(
    start_channels: Start, feishu: FakeFeishu, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("Hello **Ada**"))
    ch = await started(start_channels, feishu, allowFrom=["ou_ada"])
    status, answer = await deliver(ch, message_event("hi there", message_id="om_first"))
    assert (status, answer["status"]) == (200, "accepted")
    (reply,) = await eventually(feishu.replies, what="the reply")
    assert reply["parent"] == "om_first" and reply["markdown"] == "Hello **Ada**"
    assert claw_env.server.chat_requests[0].messages[-1]["content"] == "hi there"
    await ch.settled()
    assert len(feishu.replies()) == 1


async def test_bad_signature_wrong_token_and_stale_timestamp_are_refused(
    start_channels: Start, feishu: FakeFeishu, claw_env: ClawEnv
) -> None:
    ch = await started(start_channels, feishu, allowFrom=["ou_ada"])
    forged = await deliver(ch, message_event("x"), bad_signature=True)
    assert forged == (401, {"ok": False, "error": "invalid signature"})
    wrong_token = await deliver(ch, message_event("x", token="not-the-token"))
    assert wrong_token == (401, {"ok": False, "error": "wrong verification token"})
    stale = await deliver(ch, message_event("x"), timestamp=int(time.time()) - 3600)
    assert stale == (401, {"ok": False, "error": "stale or missing timestamp"})
    unsigned = await deliver(ch, message_event("x"), sign=False)
    assert unsigned == (401, {"ok": False, "error": "missing signature"})
    plain = await deliver(ch, message_event("x"), encrypt_key=None)
    assert plain[0] == 401
    wrong_key = await deliver(ch, message_event("x"), encrypt_key="another-key")
    assert wrong_key[0] == 401  # signed with another key: the signature does not match
    await ch.settled()
    assert ch.rows("channel_inbox") == [] and claw_env.server.chat_requests == []


async def test_a_redelivered_event_runs_no_second_turn(
    start_channels: Start, feishu: FakeFeishu, claw_env: ClawEnv
) -> None:
    ch = await started(start_channels, feishu, allowFrom=["ou_ada"])
    event = message_event("once please", event_id="ev_same")
    assert (await deliver(ch, event))[1]["status"] == "accepted"
    await eventually(feishu.replies, what="the reply")
    assert (await deliver(ch, event))[1]["status"] == "duplicate"
    await ch.settled()
    assert len(claw_env.server.chat_requests) == 1 and len(feishu.replies()) == 1


async def test_group_mentions_post_content_and_reply_chains(
    start_channels: Start, feishu: FakeFeishu, claw_env: ClawEnv
) -> None:
    ch = await started(start_channels, feishu, toml="groups = { oc_team = { requireMention = true } }",
                       groupAllowFrom=["*"], groupPolicy="allowlist")  # fmt: skip
    unmentioned = message_event("just chatting", chat_type="group", chat_id="oc_team")
    await deliver(ch, unmentioned)
    mentioned = message_event(
        "@_user_1 ping @_user_2",
        chat_type="group",
        chat_id="oc_team",
        root_id="om_root",
        mentions=[bot_mention(), {"key": "@_user_2", "id": {"open_id": "ou_bo"}, "name": "Bo"}],
    )
    await deliver(ch, mentioned)
    line = [{"tag": "at", "user_id": "@_user_1"}, {"tag": "text", "text": " see "},
            {"tag": "a", "text": "docs", "href": "https://x.test"}]  # fmt: skip
    post_content = {"title": "Plan", "content": [line]}
    rich = message_event("", chat_type="group", chat_id="oc_team", message_type="post", content=post_content,
                         mentions=[bot_mention()])  # fmt: skip
    await deliver(ch, rich)
    await eventually(lambda: len(feishu.replies()) == 2, what="two replies")
    await ch.settled()
    rows = ch.rows("channel_inbox")
    assert [r["status"] for r in rows] == ["ignored", "done", "done"]
    bodies = [json.loads(r["ctx"])["body"] for r in rows[1:]]
    assert bodies == ["ping @Bo", "Plan\nsee docs (https://x.test)"]
    assert rows[1]["session_key"] == "agent:main:feishu:group:oc_team:thread:om_root"
    assert rows[2]["session_key"] == "agent:main:feishu:group:oc_team"
    assert BOT_OPEN_ID not in json.dumps(bodies)


async def test_token_revoked_mid_conversation_is_fetched_again_once_and_the_reply_delivered(
    start_channels: Start, feishu: FakeFeishu, claw_env: ClawEnv
) -> None:
    ch = await started(start_channels, feishu, allowFrom=["ou_ada"])
    await deliver(ch, message_event("one"))
    await eventually(lambda: len(feishu.replies()) == 1, what="the first reply")
    fetched = len(feishu.calls_to("tenant_access_token"))
    feishu.revoke_tokens()
    await deliver(ch, message_event("two", message_id="om_two"))
    await eventually(lambda: len(feishu.replies()) == 2, what="the second reply")
    await ch.settled()
    assert len(feishu.calls_to("tenant_access_token")) == fetched + 1
    assert feishu.replies()[1]["parent"] == "om_two"
    assert [r["status"] for r in ch.rows("channel_outbox")] == ["sent", "sent"]


async def test_rate_limited_sends_back_off_and_a_long_reply_arrives_split_in_order(
    start_channels: Start, feishu: FakeFeishu, claw_env: ClawEnv
) -> None:
    paragraphs = [f"Paragraph {i}: " + "word " * 60 for i in range(12)]
    claw_env.server.script(text("\n\n".join(paragraphs)))
    ch = await started(start_channels, feishu, allowFrom=["ou_ada"], maxMessageChars=1000)
    feishu.fail("im/v1/messages/", 99991400, "request trigger frequency limit", status=429)
    await deliver(ch, message_event("write a lot", message_id="om_long"))
    await eventually(lambda: ch.rows("channel_outbox") and ch.rows("channel_outbox")[0]["status"] == "sent",
                     what="the reply sent")  # fmt: skip
    replies = feishu.replies()
    assert len(replies) > 1 and all(len(r["markdown"]) <= 1000 for r in replies)
    assert all(r["parent"] == "om_long" for r in replies)
    joined = " ".join(r["markdown"] for r in replies)
    assert [int(p.split(":")[0]) for p in joined.split("Paragraph ")[1:]] == list(range(12))
    assert len(feishu.calls_to("/reply")) == len(replies) + 1  # the rate-limited first try, then each part once


async def test_streaming_patches_one_card_and_the_final_text_replaces_it(
    start_channels: Start, feishu: FakeFeishu, claw_env: ClawEnv
) -> None:
    claw_env.server.script(text("The whole answer."))
    ch = await started(start_channels, feishu, allowFrom=["ou_ada"], streaming=True)
    await deliver(ch, message_event("stream it", message_id="om_s"))
    await eventually(lambda: ch.rows("channel_outbox") and ch.rows("channel_outbox")[0]["status"] == "sent",
                     what="the final text")  # fmt: skip
    (card,) = feishu.replies()
    assert card["parent"] == "om_s" and card["markdown"] == "The whole answer."
    patches = [c.path for c in feishu.calls if c.method == "PATCH"]
    assert all(p == f"im/v1/messages/{card['id']}" for p in patches)  # previews and the final edit: that card only
