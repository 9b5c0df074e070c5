"""History after turns that did not finish: the model is told so, and never gets two user messages in a row."""

from __future__ import annotations

from typing import Any

from claw.agent.history import NO_REPLY, HistoryView
from claw.transcript_entries import partial_entry


def user(i: int, text: str, run: str | None = None) -> dict[str, Any]:
    return {"id": f"u{i}", "role": "user", "content": text, "runId": run or f"r{i}"}


def reply(i: int, text: str, **flags: Any) -> dict[str, Any]:
    return {"id": f"a{i}", "role": "assistant", "content": text, "runId": f"r{i}", **flags}


def messages(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    view = HistoryView()
    view.update(entries)
    return view.select(budget_tokens=100_000)[0]


def no_two_users_in_a_row(sent: list[dict[str, Any]]) -> bool:
    roles = [m["role"] for m in sent]
    return all(not (a == b == "user") for a, b in zip(roles, roles[1:], strict=False))


def test_an_interrupted_reply_is_sent_with_its_text_and_a_note() -> None:
    entries = [
        user(1, "tell me a story"),
        partial_entry("r1", 0, "Once upon"),
        reply(1, "Once upon", interrupted=True, reason="exited"),
        user(2, "go on"),
    ]
    sent = messages(entries)
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"].startswith("Once upon\n\n[This reply is incomplete: the process running the turn")
    assert "Once upon" not in sent[0]["content"]  # the partial itself is passed over


def test_a_turn_closed_before_any_text_says_there_was_no_reply() -> None:
    failed = reply(1, "", interrupted=True, reason="error", error="model error: 500 upstream")
    sent = messages([user(1, "hi"), failed, user(2, "hello?")])
    assert sent[1] == {"role": "assistant", "content": "[No reply: the run failed: model error: 500 upstream.]"}


def test_a_reply_cut_short_by_stop_says_so() -> None:
    sent = messages([user(1, "hi"), reply(1, "Hel", aborted=True), user(2, "again")])
    assert sent[1]["content"] == "Hel\n\n[This reply is incomplete: the run was stopped.]"


def test_a_user_message_left_unanswered_gets_a_note_before_the_next() -> None:
    """A turn still running elsewhere, or an old transcript: nothing closed it."""
    entries = [user(1, "first"), user(2, "second"), reply(2, "answer")]
    sent = messages(entries)
    assert [m["content"] for m in sent] == ["first", NO_REPLY, "second", "answer"]
    assert no_two_users_in_a_row(sent)


def test_messages_steered_into_one_run_stay_together() -> None:
    entries = [user(1, "do it"), user(2, "in French, please", run="r1")]
    assert [m["content"] for m in messages(entries)] == ["do it", "in French, please"]


def test_entries_seen_one_at_a_time_give_the_same_history() -> None:
    entries = [
        user(1, "first"),
        partial_entry("r1", 0, "Par"),
        user(2, "second"),
        reply(2, "two"),
        user(3, "third"),
        reply(3, "thr", interrupted=True, reason="exited"),
        user(4, "fourth"),
    ]
    view = HistoryView()
    for n in range(1, len(entries) + 1):
        view.update(entries[:n])  # a turn at a time, as a live session grows
    stepwise = view.select(budget_tokens=100_000)[0]
    assert stepwise == messages(entries)
    assert no_two_users_in_a_row(stepwise)
