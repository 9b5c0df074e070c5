"""Feishu's pieces on their own: the documented crypto round trip and signature, content parsing, targets."""

from __future__ import annotations

import pytest

from claw.channels.feishu.adapter import FeishuAdapter
from claw.channels.feishu.crypto import CryptoError, decrypt, encrypt, signature, signature_ok
from claw.channels.feishu.wire import Mention, UserId, content_text
from claw.settings.feishu import FeishuAccount

# Feishu's own known-answer sample for an event encrypted with Encrypt Key `test key` ("接收事件" → 解密示例,
# https://open.feishu.cn/document/ukTMukTMukTM/uYDNxYjL2QTM24iN0EjN/event-subscription-configure-/encrypt-key-encryption-configuration-case;
# the same triple is in the decrypt tests of the Lark SDKs). Made by Feishu, not by claw's `encrypt`, so it checks the
# key derivation, the IV split and the padding independently of the fake's side.
FEISHU_SAMPLE_KEY, FEISHU_SAMPLE_BLOB = "test key", "P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk="


def test_decrypt_matches_feishus_published_sample() -> None:
    assert decrypt(FEISHU_SAMPLE_BLOB, FEISHU_SAMPLE_KEY) == "hello world"
    with pytest.raises(CryptoError):
        decrypt(FEISHU_SAMPLE_BLOB, "test kez")


def test_encrypt_decrypt_round_trip_and_wrong_key() -> None:
    blob = encrypt('{"challenge": "x"}', "key-1")
    assert decrypt(blob, "key-1") == '{"challenge": "x"}'
    with pytest.raises(CryptoError):
        decrypt(blob, "key-2")


def test_signature_is_sha256_of_timestamp_nonce_key_body() -> None:
    import hashlib

    sig = signature("1700000000", "n0nce", "k", b'{"a":1}')
    assert sig == hashlib.sha256(b"1700000000" + b"n0nce" + b"k" + b'{"a":1}').hexdigest()
    assert signature_ok("1700000000", "n0nce", "k", b'{"a":1}', sig.upper())
    assert not signature_ok("1700000000", "n0nce", "k", b'{"a":2}', sig)


def test_text_mentions_resolved_and_the_bots_removed() -> None:
    mentions = [Mention(key="@_user_1", id=UserId(open_id="ou_bot"), name="Claw"),
                Mention(key="@_user_2", id=UserId(open_id="ou_bo"), name="Bo")]  # fmt: skip
    assert content_text("text", '{"text": "@_user_1 ask @_user_2 now"}', mentions, "ou_bot") == "ask @Bo now"
    assert content_text("image", '{"image_key": "k"}', [], "ou_bot") == ""


def test_check_target() -> None:
    adapter = FeishuAdapter("default", FeishuAccount(app_id="cli_x", app_secret="s"))
    assert adapter.check_target("oc_abc123") is None
    assert adapter.check_target("ou_abc123") is None
    assert "invalid feishu target" in (adapter.check_target("12345") or "")
    assert adapter.address("oc_abc123") == ("feishu|default|oc_abc123|", {"chat_id": "oc_abc123"})
