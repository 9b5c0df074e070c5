"""Several stores on one session index (other processes, other gateways): no change is lost, none doubled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claw.store.sessions import SessionStore
from tests.store.together import run_together
from tests.support.session_index import read_index

MAIN = "agent:main:main"


def _keys_on_disk(sessions_dir: Path) -> set[str]:
    return set(read_index(sessions_dir))


def test_a_deferred_change_never_drops_a_session_another_store_created(sessions_dir: Path) -> None:
    a, b = SessionStore(sessions_dir), SessionStore(sessions_dir)
    a.get_or_create(MAIN)
    a.transcript(MAIN).append({"role": "user", "content": "hi"})
    a.record_turn(MAIN, preview="hi", input_tokens=3, save=False)  # the turn path defers its write
    b.get_or_create("agent:main:other")  # meanwhile another process starts a session
    a.flush()
    assert _keys_on_disk(sessions_dir) == {MAIN, "agent:main:other"}
    b.record_turn("agent:main:other", preview="still here")  # raised NotFoundError when the index lost it
    a.flush()
    fresh = SessionStore(sessions_dir)
    assert {e.session_key for e in fresh.list()} == {MAIN, "agent:main:other"}
    assert fresh.get(MAIN).input_tokens == 3  # type: ignore[union-attr]


def test_a_store_with_pending_changes_still_sees_other_writers(sessions_dir: Path) -> None:
    a, b = SessionStore(sessions_dir), SessionStore(sessions_dir)
    a.get_or_create(MAIN)
    a.update(MAIN, display_name="pending", save=False)
    b.get_or_create("agent:main:cli")
    b.update(MAIN, model_override="openai/other")
    seen = a.get(MAIN)
    assert seen is not None and seen.display_name == "pending" and seen.model_override == "openai/other"
    assert a.get("agent:main:cli") is not None


def test_two_stores_changing_one_session_keep_both_changes(sessions_dir: Path) -> None:
    a, b = SessionStore(sessions_dir), SessionStore(sessions_dir)
    a.get_or_create(MAIN)
    assert b.get(MAIN) is not None
    a.record_turn(MAIN, preview="a", input_tokens=5, output_tokens=1, save=False)
    b.record_turn(MAIN, preview="b", input_tokens=7, output_tokens=2)
    b.merge_extra(MAIN, {"b": 1})
    a.merge_extra(MAIN, {"a": 1})
    entry = SessionStore(sessions_dir).get(MAIN)
    assert entry is not None
    assert (entry.input_tokens, entry.output_tokens) == (12, 3)
    assert entry.extra == {"a": 1, "b": 1}


def test_creating_the_same_key_twice_gives_one_session(sessions_dir: Path) -> None:
    a, b = SessionStore(sessions_dir), SessionStore(sessions_dir)
    b.get_or_create("agent:main:cli")  # b has read the index before a creates MAIN
    first = a.get_or_create(MAIN)
    second = b.get_or_create(MAIN)
    assert second.session_id == first.session_id


def test_a_deferred_change_to_a_session_reset_elsewhere_does_not_resurrect_it(sessions_dir: Path) -> None:
    a, b = SessionStore(sessions_dir), SessionStore(sessions_dir)
    old = a.get_or_create(MAIN)
    a.update(MAIN, display_name="old session", save=False)
    new = b.reset(MAIN)
    a.flush()
    entry = SessionStore(sessions_dir).get(MAIN)
    assert entry is not None and entry.session_id == new.session_id != old.session_id
    assert entry.display_name is None


def test_a_session_removed_elsewhere_stays_removed(sessions_dir: Path) -> None:
    a, b = SessionStore(sessions_dir), SessionStore(sessions_dir)
    a.get_or_create(MAIN)
    a.get_or_create("agent:main:gone")
    a.update(MAIN, display_name="x", save=False)
    assert b.delete("agent:main:gone")
    a.flush()
    assert _keys_on_disk(sessions_dir) == {MAIN}


# ----------------------------------------------------------------------------- several processes

_PROCESSES = 4
_KEYS_EACH = 15
_SHARED = "agent:main:shared"


def _worker(n: int, sessions_dir: str) -> None:
    """Creates its own sessions and bumps a shared one, deferring some writes as the gateway does."""
    store = SessionStore(Path(sessions_dir))
    for i in range(_KEYS_EACH):
        key = f"agent:main:p{n}:{i}"
        store.get_or_create(key)
        store.get_or_create(_SHARED)
        store.record_turn(key, preview=f"turn {i}", input_tokens=1, save=i % 2 == 0)
        store.record_turn(_SHARED, preview=f"p{n} {i}", input_tokens=1, save=i % 3 == 0)
    store.close()


def test_concurrent_processes_lose_and_double_nothing(sessions_dir: Path) -> None:
    sessions_dir.mkdir(parents=True)
    run_together(_worker, _PROCESSES, str(sessions_dir))
    entries = {e.session_key: e for e in SessionStore(sessions_dir).list()}
    expected = {f"agent:main:p{n}:{i}" for n in range(_PROCESSES) for i in range(_KEYS_EACH)} | {_SHARED}
    assert set(entries) == expected  # none lost; a dict cannot hold a doubled key, so check the ids too
    assert len({e.session_id for e in entries.values()}) == len(expected)
    assert all(entries[key].input_tokens == 1 for key in expected - {_SHARED})
    assert entries[_SHARED].input_tokens == _PROCESSES * _KEYS_EACH  # every process's every turn counted


def test_a_reader_during_the_stores_own_write_never_counts_a_change_twice(sessions_dir: Path) -> None:
    store = SessionStore(sessions_dir)
    store.get_or_create(MAIN)
    store.record_turn(MAIN, preview="one", input_tokens=2000, save=False)
    seen: list[int] = []
    real_save = store._table.write

    def save_then_read(*args: Any, **kwargs: Any) -> Any:
        stamp = real_save(*args, **kwargs)
        # The database holds the turn now, but the write has not taken its result in yet: a reader (the event
        # loop, while the flush runs in a worker thread) looks at the session right here.
        seen.append(store.get(MAIN).input_tokens)  # type: ignore[union-attr]
        return stamp

    store._table.write = save_then_read  # type: ignore[method-assign]
    store.flush()
    store._table.write = real_save  # type: ignore[method-assign]
    assert seen == [2000]
    assert store.get(MAIN).input_tokens == 2000  # type: ignore[union-attr]
    assert SessionStore(sessions_dir).get(MAIN).input_tokens == 2000  # type: ignore[union-attr]
