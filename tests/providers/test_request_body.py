"""RequestEncoder: the same JSON as encoding the whole body, with unchanged messages encoded once."""

from __future__ import annotations

import json

import pytest

from claw.providers.request_body import BIG_TEXT_CHARS, KEEP_UNUSED_CALLS, RequestEncoder


def _body(messages: list[dict], **extra: object) -> dict:
    return {"model": "m", "messages": messages, "stream": True, **extra}


def test_the_body_decodes_to_what_was_given() -> None:
    messages = [
        {"role": "system", "content": "s" * (BIG_TEXT_CHARS + 5) + 'é "quoted" \n'},
        {"role": "user", "content": "héllo \u2028 \U0001f600"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
                                                               "function": {"name": "read", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "x" * (BIG_TEXT_CHARS * 2)},
    ]
    body = _body(messages, tools=[{"type": "function", "function": {"name": "read"}}])
    encoded = RequestEncoder().encode(body)
    assert json.loads(encoded) == body


def test_a_body_without_a_message_list_is_encoded_whole() -> None:
    assert json.loads(RequestEncoder().encode({"model": "m", "input": "x"})) == {"model": "m", "input": "x"}
    assert json.loads(RequestEncoder().encode({"messages": []})) == {"messages": []}


def test_messages_sent_again_are_not_encoded_again() -> None:
    encoder = RequestEncoder()
    history = [{"role": "user", "content": f"message {n}"} for n in range(50)]
    encoder.encode(_body(history))
    assert encoder.reused == 0
    newer = [*history, {"role": "user", "content": "one more"}]
    assert json.loads(encoder.encode(_body(newer))) == _body(newer)
    assert encoder.reused == 50


def test_an_equal_but_new_dict_is_encoded_afresh() -> None:
    encoder = RequestEncoder()
    first = [{"role": "user", "content": "a"}]
    encoder.encode(_body(first))
    copy = [dict(first[0], content="b")]  # a new dict (pruning copies what it changes)
    assert json.loads(encoder.encode(_body(copy)))["messages"] == [{"role": "user", "content": "b"}]
    assert encoder.reused == 0


def test_a_changed_system_prompt_is_never_served_from_the_cache() -> None:
    encoder = RequestEncoder()
    for n in range(3):
        system = {"role": "system", "content": "p" * BIG_TEXT_CHARS + str(n)}
        assert json.loads(encoder.encode(_body([system])))["messages"][0]["content"].endswith(str(n))


@pytest.mark.parametrize("unused_calls", [KEEP_UNUSED_CALLS - 1, 2 * KEEP_UNUSED_CALLS])
def test_messages_no_longer_sent_are_forgotten(unused_calls: int) -> None:
    encoder = RequestEncoder()
    old = [{"role": "user", "content": "old"}]
    encoder.encode(_body(old))
    for n in range(unused_calls):
        encoder.encode(_body([{"role": "user", "content": str(n)}]))
    encoder.encode(_body(old))
    assert encoder.reused == (1 if unused_calls < KEEP_UNUSED_CALLS else 0)
