"""Two connections opening a fresh gateway.db at once: switching it to WAL needs a moment's exclusive lock,
which SQLite refuses at once ("database is locked") rather than waiting through the busy handler. The
usage ledger's writer and the automations manager met there under load; `Database` now waits its turn."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from claw.store.db import Database, Migration


def test_a_fresh_file_locked_by_another_connection_is_waited_for(tmp_path: Path) -> None:
    path = tmp_path / "gateway.db"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE other (x)")  # still a rollback-journal file, as a fresh one is
    holder.execute("BEGIN IMMEDIATE")
    holder.execute("INSERT INTO other VALUES (1)")
    opened: list[Database] = []
    failed: list[BaseException] = []

    def open_it() -> None:
        try:
            opened.append(Database(path, [Migration("test", 1, "one", "CREATE TABLE mine (y)")]))
        except BaseException as exc:  # recorded for the assertion below
            failed.append(exc)

    opener = threading.Thread(target=open_it)
    opener.start()
    opener.join(0.3)
    assert opener.is_alive() and not failed  # waiting, not failed at once
    holder.execute("COMMIT")
    opener.join(10)
    assert not failed, failed
    db = opened[0]
    assert db.read(lambda c: c.execute("PRAGMA journal_mode").fetchone()[0]) == "wal"
    assert db.read(lambda c: c.execute("SELECT count(*) FROM other").fetchone()[0]) == 1
    db.close()
    holder.close()
