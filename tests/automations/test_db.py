"""gateway.db: WAL, busy timeout, numbered migrations recorded once, rollback, change detection."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from claw.automations.schema import MIGRATIONS as AUTOMATIONS
from claw.channels.schema import MIGRATIONS as CHANNELS
from claw.store.db import Database, DatabaseError, Migration, apply_migrations

EVERY_AREA = (*AUTOMATIONS, *CHANNELS)


def test_fresh_file_gets_every_migration_once_in_wal_mode(tmp_path: Path) -> None:
    db = Database(tmp_path / "gateway.db", EVERY_AREA)
    rows = db.read(lambda c: c.execute("SELECT area, number, name FROM schema_migrations").fetchall())
    assert ("automations", 1, "jobs_and_runs") in [tuple(r) for r in rows]
    assert db.read(lambda c: c.execute("PRAGMA journal_mode").fetchone()[0]) == "wal"
    assert db.read(lambda c: c.execute("PRAGMA busy_timeout").fetchone()[0]) == 5000
    assert (tmp_path / "gateway.db").stat().st_mode & 0o777 == 0o600
    db.close()
    again = Database(tmp_path / "gateway.db", EVERY_AREA)
    count = again.read(lambda c: c.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0])
    assert count == len(rows)
    again.close()


def test_a_later_area_adds_its_tables_through_the_same_ledger(tmp_path: Path) -> None:
    db = Database(tmp_path / "gateway.db")
    steps = [
        Migration("example", 1, "inbox", "CREATE TABLE inbox (id TEXT PRIMARY KEY)"),
        Migration("example", 2, "outbox", "CREATE TABLE outbox (id TEXT PRIMARY KEY); CREATE INDEX o ON outbox(id)"),
    ]  # a made-up area: "channels" is a real one now
    assert apply_migrations(db, steps) == ["example/001_inbox", "example/002_outbox"]
    assert apply_migrations(db, steps) == []
    db.write(lambda c: c.execute("INSERT INTO outbox VALUES ('x')"))
    db.close()


def test_a_failing_migration_leaves_neither_schema_nor_record(tmp_path: Path) -> None:
    db = Database(tmp_path / "gateway.db")
    broken = Migration("example", 1, "broken", "CREATE TABLE half (id INTEGER); CREATE TABLE half (id INTEGER)")
    with pytest.raises(DatabaseError, match="already exists"):
        apply_migrations(db, [broken])
    tables = db.read(lambda c: [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'table'")])
    assert "half" not in tables
    assert db.read(lambda c: c.execute("SELECT 1 FROM schema_migrations WHERE area = 'example'").fetchone()) is None
    db.close()


def test_write_rolls_back_on_error(tmp_path: Path) -> None:
    db = Database(tmp_path / "gateway.db")
    db.write(lambda c: c.execute("CREATE TABLE t (v INTEGER)"))

    def half(conn: sqlite3.Connection) -> None:
        conn.execute("INSERT INTO t VALUES (1)")
        raise ValueError("boom")

    with pytest.raises(ValueError):
        db.write(half)
    assert db.read(lambda c: c.execute("SELECT COUNT(*) FROM t").fetchone()[0]) == 0
    db.close()


def test_concurrent_openers_and_writers_do_not_trip_over_each_other(tmp_path: Path) -> None:
    path = tmp_path / "gateway.db"
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            db = Database(path, EVERY_AREA)
            db.write(lambda c: c.execute("CREATE TABLE IF NOT EXISTS hits (n INTEGER)"))
            for i in range(20):
                db.write(lambda c, i=i: c.execute("INSERT INTO hits VALUES (?)", (n * 100 + i,)))
            db.close()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    db = Database(path)
    assert db.read(lambda c: c.execute("SELECT COUNT(*) FROM hits").fetchone()[0]) == 160
    count = db.read(lambda c: c.execute("SELECT COUNT(*) FROM schema_migrations").fetchone()[0])
    assert count == len(EVERY_AREA)  # each recorded once, by whichever opener came first
    db.close()


def test_data_version_moves_when_another_connection_commits(tmp_path: Path) -> None:
    watcher = Database(tmp_path / "gateway.db")
    other = Database(tmp_path / "gateway.db")
    before = watcher.data_version()
    watcher.write(lambda c: c.execute("CREATE TABLE mine (v INTEGER)"))
    assert watcher.data_version() == before  # its own commits do not count
    other.write(lambda c: c.execute("INSERT INTO mine VALUES (1)"))
    assert watcher.data_version() != before
    watcher.close()
    other.close()
