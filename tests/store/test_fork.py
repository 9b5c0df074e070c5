"""Forking a session: exactly the first N messages, in a new session that names its parent."""

from __future__ import annotations

import pytest

from claw.errors import NotFoundError, UsageError
from claw.store.fork import fork_session
from claw.store.sessions import SessionStore


def _session(store: SessionStore, key: str, turns: int) -> None:
    store.get_or_create(key)
    transcript = store.transcript(key)
    for n in range(turns):
        transcript.append({"role": "user", "content": f"question {n}", "runId": f"r{n}"})
        transcript.append({"role": "assistant", "content": "", "runId": f"r{n}",
                           "toolCalls": [{"id": f"c{n}", "name": "read", "arguments": "{}"}]})  # fmt: skip
        transcript.append({"role": "tool", "toolCallId": f"c{n}", "name": "read", "content": "x", "runId": f"r{n}"})
        transcript.append({"type": "partial", "runId": f"r{n}", "offset": 0, "text": "ans"})
        transcript.append({"role": "assistant", "content": f"answer {n}", "runId": f"r{n}"})
    store.record_turn(key, preview="answer")


def test_a_fork_at_message_n_has_exactly_n_messages_and_the_parent_is_untouched(store: SessionStore) -> None:
    _session(store, "agent:main:main", 3)
    parent = store.get("agent:main:main")
    assert parent is not None
    before = store.transcript_path(parent.session_id).read_bytes()
    child = fork_session(store, "agent:main:main", "agent:main:try-again", at=8)
    entries = store.transcript(child).read()
    assert sum(1 for e in entries if "role" in e) == 8 == child.message_count
    assert entries[-1]["content"] == "answer 1"
    assert not [e for e in entries if e.get("type") == "partial"]
    assert child.extra["forkedFrom"] == "agent:main:main" and child.extra["forkedAt"] == 8
    assert child.extra["forkedFromId"] == parent.session_id
    assert child.extra["forkedAtEntry"] == entries[-1]["id"]
    assert store.transcript_path(parent.session_id).read_bytes() == before
    assert store.get("agent:main:main") == parent
    assert store.transcript(child).open_turn() is None  # nothing for a repair to close
    assert sum(1 for e in store.transcript(child).read() if "role" in e) == 8  # still, after its first use


def test_a_fork_defaults_to_every_message_and_keeps_the_model(store: SessionStore) -> None:
    _session(store, "agent:main:main", 2)
    store.update("agent:main:main", model_override="openai/other")
    child = fork_session(store, "agent:main:main", "agent:main:copy")
    assert child.message_count == 8 and child.model_override == "openai/other"
    assert child.last_preview == "answer 1"


def test_a_fork_inside_a_turn_is_refused_naming_the_turn_ends(store: SessionStore) -> None:
    _session(store, "agent:main:main", 2)
    with pytest.raises(UsageError, match=r"message 5 is inside a turn.*--at 4 or 8"):
        fork_session(store, "agent:main:main", "agent:main:x", at=5)
    with pytest.raises(UsageError, match="between 1 and 8"):
        fork_session(store, "agent:main:main", "agent:main:x", at=9)
    assert store.get("agent:main:x") is None


def test_a_fork_needs_a_parent_and_a_free_key(store: SessionStore) -> None:
    with pytest.raises(NotFoundError):
        fork_session(store, "agent:main:nope", "agent:main:x")
    _session(store, "agent:main:main", 1)
    _session(store, "agent:main:taken", 1)
    with pytest.raises(UsageError, match="already exists"):
        fork_session(store, "agent:main:main", "agent:main:taken")


def test_a_damaged_parent_is_copied_entry_by_entry(store: SessionStore) -> None:
    _session(store, "agent:main:main", 1)
    parent = store.get("agent:main:main")
    assert parent is not None
    path = store.transcript_path(parent.session_id)
    with open(path, "ab") as handle:
        handle.write(b"{not json\n")
    _session(store, "agent:main:main", 1)  # another turn after the damage
    child = fork_session(store, "agent:main:main", "agent:main:copy", at=8)
    copied = store.transcript_path(child.session_id).read_text().splitlines()
    assert len(copied) == 8 and "{not json" not in copied
    assert sum(1 for e in store.transcript(child).read() if "role" in e) == 8
