"""A turn left open by a dead process is closed once, by whichever store gets there first, never while live."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from claw.store.sessions import SessionStore
from claw.store.transcript import Transcript
from claw.store.turn_lock import TurnLock
from claw.store.turn_repair import close_interrupted_turn
from claw.transcript_entries import partial_entry
from tests.store.together import run_together
from tests.support.session_index import read_index

MAIN = "agent:main:main"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _interrupted(path: Path) -> list[dict[str, Any]]:
    return [e for e in _lines(path) if e.get("interrupted")]


def _index_count(sessions_dir: Path) -> int:
    return int(read_index(sessions_dir)[MAIN]["messageCount"])


def _killed_mid_reply(sessions_dir: Path) -> Path:
    """What a process killed while streaming leaves: a finished turn, then a user message and partials,
    the index written after the finished turn only."""
    store = SessionStore(sessions_dir)
    entry = store.get_or_create(MAIN)
    transcript = store.transcript(entry)
    transcript.append({"role": "user", "content": "first", "runId": "r0"})
    transcript.append({"role": "assistant", "content": "first answer", "runId": "r0"})
    store.record_turn(MAIN, preview="first answer")
    transcript.append({"role": "user", "content": "tell me a story", "runId": "r1"})
    transcript.append(partial_entry("r1", 0, "Once upon "))
    transcript.append(partial_entry("r1", 10, "a time"))
    store.close()
    return transcript.path


def test_the_next_store_closes_the_turn_with_the_streamed_text(sessions_dir: Path) -> None:
    path = _killed_mid_reply(sessions_dir)
    assert _index_count(sessions_dir) == 2  # the index never heard of the killed turn

    entries = SessionStore(sessions_dir).transcript(MAIN).read()  # what `claw sessions show` does first

    last = entries[-1]
    assert (last["role"], last["content"], last["interrupted"], last["reason"], last["runId"]) == (
        "assistant",
        "Once upon a time",
        True,
        "exited",
        "r1",
    )
    assert _lines(path)[-1] == last  # on disk, not only in this reader's view
    assert _index_count(sessions_dir) == 4 == Transcript(path).message_count()  # user, reply, user, interrupted


def test_closing_is_idempotent(sessions_dir: Path) -> None:
    path = _killed_mid_reply(sessions_dir)
    for _ in range(3):
        store = SessionStore(sessions_dir)
        store.transcript(MAIN).read()
        assert store.close_interrupted_turn(MAIN) is None  # already closed on first use
        store.close()
    assert len(_interrupted(path)) == 1
    assert close_interrupted_turn(Transcript(path)) is None


def test_a_live_turn_is_never_closed(sessions_dir: Path) -> None:
    path = _killed_mid_reply(sessions_dir)
    live = TurnLock(path)
    assert live.acquire_shared(wait=False)  # a turn running (another process's, or this one's)
    try:
        store = SessionStore(sessions_dir)
        assert store.transcript(MAIN).read()[-1]["type"] == "partial"
        assert store.close_interrupted_turn(MAIN) is None
        assert _interrupted(path) == []
    finally:
        live.release()  # the turn's process died: the kernel drops its lock
    assert SessionStore(sessions_dir).close_interrupted_turn(MAIN) is not None
    assert len(_interrupted(path)) == 1


def test_two_stores_that_both_saw_the_open_turn_close_it_once(
    sessions_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second repairer looks again under the lock: the first closed the turn while it waited."""
    path = _killed_mid_reply(sessions_dir)
    first, second = Transcript(path), Transcript(path)
    assert first.open_turn() is not None and second.open_turn() is not None
    real_try = TurnLock.try_exclusive
    raced: list[Any] = []

    def other_repairer_first(lock: TurnLock) -> bool:
        if not raced:  # between `second` seeing the open turn and taking the lock, `first` repairs it
            raced.append("racing")
            raced.append(close_interrupted_turn(first))
        return real_try(lock)

    monkeypatch.setattr(TurnLock, "try_exclusive", other_repairer_first)
    assert close_interrupted_turn(second) is None
    assert raced[1] is not None
    assert len(_interrupted(path)) == 1


def _repair_worker(n: int, sessions_dir: str) -> None:
    store = SessionStore(Path(sessions_dir))
    store.transcript(MAIN).read()
    store.close_interrupted_turn(MAIN)
    store.close()


def test_processes_repairing_at_once_append_one_entry(sessions_dir: Path) -> None:
    path = _killed_mid_reply(sessions_dir)
    run_together(_repair_worker, 4, str(sessions_dir))
    closing = _interrupted(path)
    assert len(closing) == 1 and closing[0]["content"] == "Once upon a time"
    assert _index_count(sessions_dir) == 4


def test_an_index_behind_its_transcript_is_recounted(sessions_dir: Path) -> None:
    """A turn that ended in the transcript but was killed before its deferred index write."""
    store = SessionStore(sessions_dir)
    store.get_or_create(MAIN)
    transcript = store.transcript(MAIN)
    transcript.append({"role": "user", "content": "hi", "runId": "r1"})
    transcript.append({"role": "assistant", "content": "hello", "runId": "r1"})
    store.record_turn(MAIN, preview="hello", save=False)  # ... and the process dies before `flush`
    assert _index_count(sessions_dir) == 0

    fresh = SessionStore(sessions_dir)
    fresh.transcript(MAIN).read()
    assert _interrupted(transcript.path) == []  # nothing was open
    assert _index_count(sessions_dir) == 2


def test_a_session_reset_elsewhere_keeps_its_new_count(sessions_dir: Path) -> None:
    path = _killed_mid_reply(sessions_dir)
    stale = SessionStore(sessions_dir)
    stale_transcript = stale.transcript(MAIN)  # not used yet: settles on first use
    SessionStore(sessions_dir).reset(MAIN)  # another process resets the session meanwhile
    assert stale_transcript.path == path
    stale_transcript.read()  # the old transcript (archived now: nothing there to close)
    entry = SessionStore(sessions_dir).get(MAIN)
    assert entry is not None and entry.message_count == 0
