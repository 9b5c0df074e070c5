"""DingTalk's callback signature and message normalisation (the documented robot callback contract)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

import pytest

from claw.channels.dingtalk.wire import DtMessage, check_sign, sign, to_inbound
from claw.settings.dingtalk import DingTalkSettings

SECRET = "dt-secret-0123456789abcdef"


def _headers(ts_ms: int, secret: str = SECRET) -> dict[str, str]:
    return {"timestamp": str(ts_ms), "sign": sign(str(ts_ms), secret)}


def test_sign_is_base64_hmac_sha256_of_timestamp_newline_secret() -> None:
    ts = "1700000000000"
    expected = base64.b64encode(hmac.new(SECRET.encode(), f"{ts}\n{SECRET}".encode(), hashlib.sha256).digest())
    assert sign(ts, SECRET) == expected.decode()


def test_a_fresh_signed_callback_passes_and_bad_or_stale_ones_are_refused() -> None:
    now = time.time()
    fresh = int(now * 1000)
    assert check_sign(_headers(fresh), SECRET, now, 3600) is None
    assert check_sign(_headers(fresh, "wrong-secret"), SECRET, now, 3600) == "invalid sign"
    assert check_sign(_headers(fresh - 3601_000), SECRET, now, 3600) == "stale or invalid timestamp"
    assert check_sign(_headers(fresh + 3601_000), SECRET, now, 3600) == "stale or invalid timestamp"
    assert check_sign({"timestamp": str(fresh)}, SECRET, now, 3600) == "missing timestamp or sign"
    assert check_sign({"timestamp": "abc", "sign": "x"}, SECRET, now, 3600) == "stale or invalid timestamp"


def _message(**over: object) -> DtMessage:
    raw = {
        "msgId": "msg-1",
        "msgtype": "text",
        "text": {"content": " hello "},
        "conversationType": "1",
        "conversationId": "cid-dm",
        "senderStaffId": "staff-7",
        "senderNick": "Ann",
        "sessionWebhook": "http://127.0.0.1:1/robot/sendBySession?session=x",
        "sessionWebhookExpiredTime": 1_900_000_000_000,
        **over,
    }
    return DtMessage.model_validate(raw)


def test_a_single_chat_is_a_direct_message_of_its_sender() -> None:
    found = to_inbound(_message(), "default")
    assert found is not None
    assert found.ctx.chat_type == "direct" and found.ctx.peer_id == "staff-7" and found.ctx.body == "hello"
    assert found.dedupe_key == "dingtalk|default|msg-1"
    assert found.reply_to["session_webhook"].endswith("session=x") and found.reply_to["staff_id"] == "staff-7"
    assert found.meta["mentioned"] is True


def test_a_group_message_is_a_session_of_the_conversation_and_carries_the_mention() -> None:
    found = to_inbound(_message(conversationType="2", conversationId="cid-g", isInAtList=True), "work")
    assert found is not None
    assert found.ctx.chat_type == "group" and found.ctx.group_id == "cid-g" and found.ctx.peer_id == "cid-g"
    assert found.conversation == "dingtalk|work|cid-g" and found.meta["mentioned"] is True
    unmentioned = to_inbound(_message(conversationType="2", isInAtList=False), "work")
    assert unmentioned is not None and unmentioned.meta["mentioned"] is False


def test_non_text_and_empty_messages_are_skipped() -> None:
    assert to_inbound(_message(msgtype="picture"), "default") is None
    assert to_inbound(_message(text={"content": "   "}), "default") is None


def test_settings_accounts_inherit_and_open_needs_a_wildcard() -> None:
    """Not yet a `[channels.dingtalk]` section (no adapter delivers yet): the settings model on its own."""
    s = DingTalkSettings.model_validate(
        {"clientId": "ding-app", "clientSecret": SECRET, "mode": "http", "accounts": {"ops": {"robotCode": "r-ops"}}}
    )
    accounts = s.effective_accounts()
    assert set(accounts) == {"ops"} and accounts["ops"].mode == "http" and accounts["ops"].robot() == "r-ops"
    assert accounts["ops"].secret() == SECRET
    assert DingTalkSettings().effective_accounts() == {}
    with pytest.raises(ValueError, match="allowFrom"):
        DingTalkSettings.model_validate({"clientId": "x", "dmPolicy": "open"})


def test_the_sign_cache_forgets_pairs_out_of_the_window_and_stays_bounded() -> None:
    from claw.channels.dingtalk.wire import SignCache

    now = time.time()
    cache = SignCache(3600, limit=3)
    old = int((now - 3700) * 1000)
    assert cache.bind(_headers(old), "m-old", now - 3700) is None
    for i in range(3):
        assert cache.bind(_headers(int(now * 1000) + i), f"m{i}", now) is None
    assert len(cache._seen) == 3 and (str(old), sign(str(old), SECRET)) not in cache._seen
    assert cache.bind(_headers(int(now * 1000) + 2), "forged", now) == "replayed timestamp and sign"
    assert cache.bind(_headers(int(now * 1000) + 2), "m2", now) is None  # a redelivery of the same message
