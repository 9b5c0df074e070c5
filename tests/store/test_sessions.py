"""The session index: keys, lifecycle (create, update, reset, delete), durability and reloads."""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import stat
import threading
import time
from pathlib import Path

import pytest

from claw.errors import NotFoundError
from claw.store.db import DatabaseError
from claw.store.sessions import SessionEntry, SessionStore
from tests.support.session_index import read_index

MAIN = "agent:main:main"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_get_or_create_is_idempotent_and_private(store: SessionStore, sessions_dir: Path) -> None:
    first = store.get_or_create(MAIN)
    again = store.get_or_create(MAIN, chat_type="group", channel="telegram")
    assert again == first
    assert re.fullmatch(r"[0-9a-f]{32}", first.session_id)
    assert (first.chat_type, first.channel, first.message_count) == ("direct", "cli", 0)
    assert store.get("agent:main:other") is None
    assert _mode(sessions_dir / "sessions.sqlite") == 0o600
    assert _mode(sessions_dir) == 0o700
    on_disk = read_index(sessions_dir)
    assert on_disk[MAIN]["sessionId"] == first.session_id
    assert on_disk[MAIN]["chatType"] == "direct"


def test_keys_are_lowercased_everywhere(store: SessionStore, sessions_dir: Path) -> None:
    entry = store.get_or_create("Agent:Main:Telegram:Direct:ALICE")
    assert entry.session_key == "agent:main:telegram:direct:alice"
    assert store.get("AGENT:main:telegram:direct:alice") == entry
    store.update("agent:MAIN:telegram:direct:Alice", display_name="Alice")
    assert store.transcript("AGENT:MAIN:TELEGRAM:DIRECT:ALICE") is store.transcript(entry)
    assert store.delete("Agent:Main:Telegram:Direct:Alice")
    assert store.get(entry.session_key) is None
    assert read_index(sessions_dir) == {}


def test_update_and_record_turn(store: SessionStore) -> None:
    entry = store.get_or_create(MAIN)
    time.sleep(0.001)
    changed = store.update(MAIN, model_override="openai/gpt-x", extra={"skills": ["a"]})
    assert changed.model_override == "openai/gpt-x" and changed.extra == {"skills": ["a"]}
    assert changed.updated_at > entry.updated_at and changed.created_at == entry.created_at
    with pytest.raises(NotFoundError):
        store.update("agent:main:missing", model_override="x")
    with pytest.raises(ValueError):
        store.update(MAIN, session_key="agent:main:other")

    transcript = store.transcript(MAIN)
    transcript.append({"role": "user", "content": "hi"})
    transcript.append({"role": "assistant", "content": "hello"})
    turn = store.record_turn(MAIN, preview="  line one\n" + "y" * 300, input_tokens=10, output_tokens=4)
    store.record_turn(MAIN, preview="again", input_tokens=5, output_tokens=1)
    turn = store.get(MAIN)
    assert turn is not None
    assert (turn.message_count, turn.input_tokens, turn.output_tokens) == (2, 15, 5)
    assert turn.last_preview == "again"
    long = store.update(MAIN, last_preview="  line one\n" + "y" * 300).last_preview
    assert len(long) == 120 and long.startswith("line one yyy") and long.endswith("…")


def test_transcript_object_is_shared_per_session(store: SessionStore, sessions_dir: Path) -> None:
    entry = store.get_or_create(MAIN)
    transcript = store.transcript(entry)
    assert transcript is store.transcript(MAIN)
    assert transcript.path == sessions_dir / f"{entry.session_id}.jsonl"
    with pytest.raises(NotFoundError):
        store.transcript("agent:main:nobody")


def test_reset_archives_the_old_transcript_and_starts_a_new_session(
    store: SessionStore, sessions_dir: Path
) -> None:
    store.get_or_create(MAIN)
    old = store.update(MAIN, model_override="openai/m", input_tokens=99, message_count=1, display_name="Me")
    old_transcript = store.transcript(old)
    old_transcript.append({"role": "user", "content": "remember me"})
    old_bytes = old_transcript.path.read_bytes()

    new = store.reset(MAIN)
    assert new.session_id != old.session_id and new.session_key == MAIN
    assert (new.model_override, new.display_name) == ("openai/m", "Me")
    assert (new.input_tokens, new.message_count, new.last_preview) == (0, 0, "")
    archived = sessions_dir / "archive" / f"{old.session_id}.jsonl"
    assert archived.read_bytes() == old_bytes
    assert not (sessions_dir / f"{old.session_id}.jsonl").exists()
    assert _mode(sessions_dir / "archive") == 0o700

    fresh = store.transcript(MAIN)
    assert fresh is not old_transcript and fresh.read() == []
    fresh.append({"role": "user", "content": "new start"})
    assert archived.read_bytes() == old_bytes
    assert SessionStore(sessions_dir).get(MAIN) == new


def test_reset_of_an_unknown_key_creates_it(store: SessionStore) -> None:
    assert store.reset("agent:main:new").session_key == "agent:main:new"


def test_delete_removes_the_entry_and_archives_the_transcript(
    store: SessionStore, sessions_dir: Path
) -> None:
    entry = store.get_or_create(MAIN)
    store.transcript(entry).append({"role": "user", "content": "bye"})
    assert store.delete(MAIN) is True
    assert store.delete(MAIN) is False
    assert store.get(MAIN) is None
    assert (sessions_dir / "archive" / f"{entry.session_id}.jsonl").exists()
    assert SessionStore(sessions_dir).get(MAIN) is None


def test_list_is_newest_updated_first(store: SessionStore) -> None:
    for name in ("a", "b", "c"):
        store.get_or_create(f"agent:main:{name}")
        time.sleep(0.001)
    store.update("agent:main:a", display_name="touched")
    assert [e.session_key for e in store.list()] == ["agent:main:a", "agent:main:c", "agent:main:b"]


def test_index_survives_a_new_store(store: SessionStore, sessions_dir: Path) -> None:
    store.get_or_create("agent:main:telegram:group:42", chat_type="group", channel="telegram")
    saved = store.update(
        "agent:main:telegram:group:42", model_override="p/m", extra={"snapshot": {"v": 1}}, output_tokens=7
    )
    reopened = SessionStore(sessions_dir)
    assert reopened.get("agent:main:telegram:group:42") == saved
    assert reopened.list() == [saved]


def test_corrupt_index_is_moved_aside_not_destroyed(
    sessions_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sessions_dir.mkdir(parents=True)
    garbage = b'{"agent:main:main": {"sessionId": "abc", '
    (sessions_dir / "sessions.json").write_bytes(garbage)
    with caplog.at_level(logging.WARNING):
        store = SessionStore(sessions_dir)
    assert store.list() == []
    assert "not a valid session index" in caplog.text
    quarantined = list(sessions_dir.glob("sessions.json.corrupt-*"))
    assert len(quarantined) == 1 and quarantined[0].read_bytes() == garbage
    store.get_or_create(MAIN)
    assert quarantined[0].read_bytes() == garbage
    assert list(read_index(sessions_dir)) == [MAIN]


def test_unreadable_single_entry_is_kept_verbatim(sessions_dir: Path) -> None:
    sessions_dir.mkdir(parents=True)
    bad = {"sessionId": "../../etc/passwd", "createdAt": "x", "updatedAt": "x"}
    (sessions_dir / "sessions.json").write_text(json.dumps({"agent:main:bad": bad}))
    store = SessionStore(sessions_dir)
    assert store.get("agent:main:bad") is None
    store.get_or_create(MAIN)
    with sqlite3.connect(sessions_dir / "sessions.sqlite") as db:
        kept = db.execute("SELECT value FROM unparsed WHERE key = 'agent:main:bad'").fetchone()
    assert json.loads(kept[0]) == bad
    assert store.delete("agent:main:bad") and store.list() == [store.get(MAIN)]


def test_unknown_fields_are_preserved() -> None:
    entry = SessionEntry.from_json("K", {"sessionId": "s1", "createdAt": "t", "updatedAt": "t", "future": 1})
    assert entry.session_key == "k" and entry.extra == {"future": 1}
    assert entry.to_json()["extra"] == {"future": 1}


def test_external_modification_is_reloaded(store: SessionStore, sessions_dir: Path) -> None:
    created = store.get_or_create(MAIN)
    other = SessionStore(sessions_dir)  # e.g. a CLI command in another process
    assert other.get(MAIN) == created
    other.update(MAIN, model_override="openai/other")
    other.get_or_create("agent:main:cli")
    seen = store.get(MAIN)
    assert seen is not None and seen.model_override == "openai/other"
    store.update(MAIN, display_name="mine")  # must not clobber the other store's new session
    assert {e.session_key for e in SessionStore(sessions_dir).list()} == {MAIN, "agent:main:cli"}


def test_failed_write_is_retried_by_flush(
    store: SessionStore, sessions_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store.get_or_create(MAIN)

    def disk_full(*args: object, **kwargs: object) -> None:
        raise DatabaseError("sessions.sqlite: database or disk is full")

    monkeypatch.setattr(store._table, "write", disk_full)
    with pytest.raises(DatabaseError):
        store.update(MAIN, display_name="pending")
    monkeypatch.undo()
    assert store.get(MAIN).display_name == "pending"  # type: ignore[union-attr]
    store.flush()
    assert SessionStore(sessions_dir).get(MAIN).display_name == "pending"  # type: ignore[union-attr]


def test_stale_temp_files_are_removed_on_open(sessions_dir: Path) -> None:
    sessions_dir.mkdir(parents=True)
    stale = sessions_dir / ".sessions.json.x1y2.tmp"
    stale.write_text("{")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))
    SessionStore(sessions_dir)
    assert not stale.exists()


def test_concurrent_threads_lose_no_sessions(store: SessionStore, sessions_dir: Path) -> None:
    def worker(n: int) -> None:
        for i in range(10):
            key = f"agent:main:t{n}:{i}"
            store.get_or_create(key)
            store.update(key, input_tokens=i)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(SessionStore(sessions_dir).list()) == 40


def test_a_deferred_flush_does_not_block_readers_while_it_writes(store: SessionStore) -> None:
    store.get_or_create("agent:main:main")
    store.update("agent:main:main", message_count=1, save=False)
    writing, release = threading.Event(), threading.Event()
    real_save = store._table.write

    def slow_save(*args, **kwargs):  # the disk is slow: the write waits until the test lets it go
        writing.set()
        release.wait(5)
        return real_save(*args, **kwargs)

    store._table.write = slow_save  # type: ignore[method-assign]
    flusher = threading.Thread(target=store.flush)
    flusher.start()
    assert writing.wait(5)
    started = time.monotonic()
    entry = store.get("agent:main:main")  # must not wait for the write
    store.update("agent:main:main", message_count=2, save=False)  # a newer change meanwhile
    assert time.monotonic() - started < 1.0
    assert entry is not None and entry.message_count == 1
    release.set()
    flusher.join(5)
    store._table.write = real_save  # type: ignore[method-assign]
    on_disk = read_index(store.sessions_dir)
    assert on_disk["agent:main:main"]["messageCount"] == 1  # the snapshot that was being written
    store.flush()  # the newer change is still pending, and is written now
    assert read_index(store.sessions_dir)["agent:main:main"]["messageCount"] == 2
    assert SessionStore(store.sessions_dir).get("agent:main:main").message_count == 2
