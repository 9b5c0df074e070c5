"""`check_session_key` accepts every key claw makes itself and refuses what it would never make;
`normalize_session_key`, the entry point for typed keys, applies it."""

from __future__ import annotations

import pytest

from claw.channels.webhook.adapter import key_part
from claw.errors import UsageError
from claw.vocab.msg_context import MsgContext
from claw.vocab.session_keys import (
    MAX_SESSION_KEY_CHARS,
    InvalidSessionKey,
    check_session_key,
    key_segment,
    normalize_session_key,
    session_key_for,
    subagent_session_key,
)


def test_the_keys_claw_makes_pass_the_check() -> None:
    made = [
        session_key_for(MsgContext(body="x"), "main"),
        session_key_for(MsgContext(body="x", channel="Telegram", peer_id="42"), "ops", "per-channel-peer"),
        session_key_for(
            MsgContext(body="x", channel="telegram", account_id="Bot #2", peer_id="Ada Lovelace"),
            "ops",
            "per-account-channel-peer",
        ),
        session_key_for(
            MsgContext(body="x", channel="telegram", chat_type="group", group_id="-100123", thread_id="7"), "main"
        ),
        subagent_session_key("main"),
        f"agent:main:webhook:{key_part('CI Bot')}:{key_part('PR #12 / build')}:thread:{key_part('a' * 300)}",
        f"agent:main:http:direct:{key_segment('Ünïcode user ' * 20, empty='user')}",
        "agent:main:cron:0f3a9c2e",
    ]
    for key in made:
        assert check_session_key(key) == key


@pytest.mark.parametrize(
    ("typed", "fragment"),
    [
        ("../../etc/passwd", "'agent:main:../../etc/passwd' contains '/'"),
        ("x" * 5000, "is 5,011 characters long; the limit is 256"),
        ("agent::", "'agent::' is not a key of the form agent:<agentId>:<rest>"),
        ("agent:main", "'agent:main' is not a key of the form agent:<agentId>:<rest>"),
        ("agent:..:main", "'agent:..:main' names no valid agent id"),
        ("notes #1", "contains ' '"),
        ("tab\there", "contains '\\t'"),
        ("ünïcode", "contains 'ü'"),
    ],
)
def test_typed_keys_claw_would_never_make_are_refused(typed: str, fragment: str) -> None:
    with pytest.raises(InvalidSessionKey) as refused:
        normalize_session_key(typed)
    assert isinstance(refused.value, UsageError)  # exit 2 in the CLI, INVALID_REQUEST on the wire
    assert refused.value.message.startswith("invalid session key: ") and fragment in refused.value.message
    assert len(refused.value.message) < 200  # a huge key is not echoed whole


def test_normalising_is_unchanged_for_good_keys() -> None:
    assert normalize_session_key("") == "agent:main:main"
    assert normalize_session_key("main", "ops") == "agent:ops:main"
    assert normalize_session_key("  Desk ", "ops") == "agent:ops:desk"
    assert normalize_session_key("AGENT:Work:Telegram:direct:42") == "agent:work:telegram:direct:42"
    longest = "agent:main:" + "k" * (MAX_SESSION_KEY_CHARS - len("agent:main:"))
    assert normalize_session_key(longest) == longest
    with pytest.raises(InvalidSessionKey, match="the limit is 256"):
        normalize_session_key(longest + "k")
