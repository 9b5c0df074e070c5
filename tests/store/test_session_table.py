"""`sessions.sqlite`: the import of an old `sessions.json`, and shared values stored once."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from claw.store.sessions import SessionStore
from tests.support.session_index import read_index

MAIN = "agent:main:main"
SNAPSHOT = {
    "fingerprint": "f" * 32,
    "version": 1,
    "takenAt": "2026-01-01T00:00:00Z",
    "total": 2,
    "descriptions": "full",
    "skills": [{"name": f"s{i}", "description": "d" * 200, "location": f"/skills/s{i}/SKILL.md"} for i in range(8)],
}


def _old_entry(session_id: str, updated: str) -> dict[str, object]:
    return {"sessionId": session_id, "createdAt": updated, "updatedAt": updated, "messageCount": 2, "future": 1}


def test_an_old_sessions_json_is_imported_once_and_kept_as_a_backup(sessions_dir: Path) -> None:
    sessions_dir.mkdir(parents=True)
    old = {
        MAIN: _old_entry("a1", "2026-01-02T00:00:00Z"),
        "Agent:Main:Cli": {**_old_entry("b2", "2026-01-01T00:00:00Z"), "extra": {"skillsSnapshot": SNAPSHOT}},
        "agent:main:bad": {"sessionId": "../x", "createdAt": "t", "updatedAt": "t"},
    }
    raw = json.dumps(old).encode()
    (sessions_dir / "sessions.json").write_bytes(raw)
    store = SessionStore(sessions_dir)
    assert [e.session_key for e in store.list()] == [MAIN, "agent:main:cli"]
    assert store.get(MAIN).extra == {"future": 1}  # type: ignore[union-attr]
    assert store.get("agent:main:cli").extra["skillsSnapshot"] == SNAPSHOT  # type: ignore[union-attr]
    assert not (sessions_dir / "sessions.json").exists()
    [backup] = sessions_dir.glob("sessions.json.migrated-*")
    assert backup.read_bytes() == raw
    store.update(MAIN, display_name="new")
    store.close()
    (sessions_dir / "sessions.json").write_bytes(raw)  # a stray file later is not imported over the rows
    again = read_index(sessions_dir)
    assert again[MAIN]["displayName"] == "new" and set(again) == {MAIN, "agent:main:cli"}
    assert len(list(sessions_dir.glob("sessions.json.migrated-*"))) == 2


def test_the_skills_snapshot_is_stored_once_for_every_session_that_shares_it(sessions_dir: Path) -> None:
    store = SessionStore(sessions_dir)
    for i in range(20):
        key = f"agent:main:s{i}"
        store.get_or_create(key)
        store.merge_extra(key, {"skillsSnapshot": {**SNAPSHOT, "takenAt": f"2026-01-01T00:00:{i:02d}Z"}})
    assert store.get("agent:main:s7").extra["skillsSnapshot"]["takenAt"] == "2026-01-01T00:00:07Z"  # type: ignore[union-attr]
    assert SessionStore(sessions_dir).get("agent:main:s3").extra["skillsSnapshot"]["skills"] == SNAPSHOT["skills"]  # type: ignore[union-attr]
    store.close()
    with sqlite3.connect(sessions_dir / "sessions.sqlite") as db:
        assert db.execute("SELECT count(*) FROM shared").fetchone()[0] == 1
        rows = [data for (data,) in db.execute("SELECT data FROM sessions")]
    assert len(rows) == 20 and all(len(data) < 600 and "SKILL.md" not in data for data in rows)


def test_a_listing_streams_every_row_in_order(sessions_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("claw.store.session_table._PAGE", 7)  # several pages, with a few rows
    store = SessionStore(sessions_dir)
    for i in range(30):
        store.get_or_create(f"agent:main:k{i}")
        store.update(f"agent:main:k{i}", save=False, updated_at=f"2026-01-01T{i % 10:05d}")  # ties too
    store.update("agent:main:k3", save=False, updated_at="2027")
    rows = [e.session_key for e in store.iter_entries()]  # writes the deferred changes first
    assert rows[0] == "agent:main:k3" and len(rows) == len(set(rows)) == 30
    assert [(e.updated_at, e.created_at) for e in store.iter_entries()] == [
        (e.updated_at, e.created_at) for e in store.list()
    ]
    store.close()


def test_a_listing_may_leave_the_shared_values_out(sessions_dir: Path) -> None:
    store = SessionStore(sessions_dir)
    store.get_or_create(MAIN)
    store.merge_extra(MAIN, {"skillsSnapshot": SNAPSHOT, "think": "high"})
    store.close()
    reopened = SessionStore(sessions_dir)
    [whole] = reopened.iter_entries()
    [light] = reopened.iter_entries(shared=False)
    assert whole.extra == {"skillsSnapshot": SNAPSHOT, "think": "high"}
    assert light.extra == {"think": "high"} and light.session_id == whole.session_id
    reopened.close()
