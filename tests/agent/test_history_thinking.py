"""History and an assistant entry's `thinking`: left out of the messages, or sent (and counted) with sendReasoning."""

from __future__ import annotations

from claw.agent.history import HistoryView, to_message

THOUGHT = "step one, step two, " * 50
ENTRIES = [
    {"id": "1", "role": "user", "content": "hi", "runId": "r1"},
    {"id": "2", "role": "assistant", "content": "hello", "thinking": THOUGHT, "runId": "r1"},
    {"id": "3", "role": "user", "content": "again", "runId": "r2"},
]


def test_thinking_is_left_out_of_the_message_by_default() -> None:
    assert to_message(ENTRIES[1]) == {"role": "assistant", "content": "hello"}


def test_send_reasoning_puts_it_in_reasoning_content_and_counts_it() -> None:
    plain, sending = HistoryView(), HistoryView(send_reasoning=True)
    plain.update(ENTRIES)
    sending.update(ENTRIES)
    messages, tokens = sending.select(100_000)
    assert messages[1] == {"role": "assistant", "content": "hello", "reasoning_content": THOUGHT}
    plain_messages, plain_tokens = plain.select(100_000)
    assert plain_messages[1] == {"role": "assistant", "content": "hello"}
    assert tokens >= plain_tokens + len(THOUGHT) // 5  # the budget weighs what is really sent


def test_an_empty_or_odd_thinking_field_sends_nothing() -> None:
    for odd in ("", None, 42, ["x"]):
        entry = {"role": "assistant", "content": "hello", "thinking": odd}
        assert to_message(entry, send_reasoning=True) == {"role": "assistant", "content": "hello"}
