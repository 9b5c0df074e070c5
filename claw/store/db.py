"""gateway.db: the one SQLite file the gateway's durable queues and schedules live in.

One `Database` wraps one connection in WAL mode with a busy timeout; every write
runs in a `BEGIN IMMEDIATE` transaction (a deferred one that reads first and then
writes can fail with SQLITE_BUSY without waiting). `synchronous=FULL` makes a
commit durable across power loss, not only across a crash of the process.

Schema changes are numbered migrations, recorded in `schema_migrations` by
(area, number): each area (automations, channels …) owns its own sequence, passes it
to `Database` when it opens the file, and never edits a migration once shipped. Every
connection applies whatever of its migrations is missing, each in its own transaction
with its record row, so two processes opening a fresh file at once apply it once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from claw.errors import ClawError
from claw.paths import ensure_private_dir

log = logging.getLogger(__name__)

T = TypeVar("T")

BUSY_TIMEOUT_MS = 5000


class DatabaseError(ClawError):
    """gateway.db could not be opened or written (locked too long, disk full, corrupt)."""


_DAMAGED = frozenset({"SQLITE_CORRUPT", "SQLITE_NOTADB"})


def damaged(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file itself is damaged (not merely busy or full)."""
    return getattr(exc, "sqlite_errorname", "") in _DAMAGED


def repair_hint(path: Path) -> str:
    """What to do about a damaged gateway.db (said by the error and by `claw doctor`)."""
    return (
        f"stop the gateway and move it aside (`mv {path} {path}.corrupt`): claw starts a new one, without "
        "the channel queues, automations and usage history the old one held"
    )


def _error(path: Path, exc: sqlite3.Error, doing: str) -> DatabaseError:
    if damaged(exc):
        return DatabaseError(f"{path} is damaged ({exc}); {repair_hint(path)}")
    return DatabaseError(f"{doing}{exc}")


def enable_wal(conn: sqlite3.Connection, timeout: float = BUSY_TIMEOUT_MS / 1000) -> None:
    """Put the file in WAL mode, waiting up to `timeout` for other connections.

    Switching a new file (rollback journal) to WAL needs a moment's exclusive lock, and SQLite answers
    "database is locked" at once rather than through the busy handler when another connection holds a
    lock then: two connections of one process opening a fresh gateway.db together (the usage ledger's
    writer and the automations manager) raced there. Once the file is in WAL, asking is a plain read."""
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            if time.monotonic() + pause > deadline:
                raise
            time.sleep(pause)
            pause = min(pause * 2, 0.1)


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step of one area: SQL statements, or a function given the connection."""

    area: str
    number: int
    name: str
    apply: str | Callable[[sqlite3.Connection], None]


class Database:
    """One connection to gateway.db, shared by threads under a lock (use `read`/`write` or their async forms)."""

    def __init__(self, path: Path, migrations: Iterable[Migration] = ()) -> None:
        self.path = Path(path)
        ensure_private_dir(self.path.parent)
        self._lock = threading.Lock()
        if not self.path.exists():  # created 0600 first: SQLite gives the -wal and -shm files the same mode
            os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        try:
            self._conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
            )
            self._conn.row_factory = sqlite3.Row
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            enable_wal(self._conn)
            self._conn.execute("PRAGMA synchronous = FULL")
            self._conn.execute("PRAGMA foreign_keys = ON")
            apply_migrations(self, migrations)
        except sqlite3.Error as exc:
            raise _error(self.path, exc, f"cannot open {self.path}: ") from None

    def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` on the connection outside any explicit transaction (each statement sees a snapshot)."""
        with self._lock:
            try:
                return fn(self._conn)
            except sqlite3.DatabaseError as exc:
                if not isinstance(exc, sqlite3.OperationalError) and not damaged(exc):
                    raise
                raise _error(self.path, exc, f"{self.path.name}: ") from None

    def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run `fn` inside `BEGIN IMMEDIATE … COMMIT`; any exception rolls everything back."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise DatabaseError(f"{self.path.name} is busy ({exc}); try again") from None
            try:
                result = fn(self._conn)
                self._conn.execute("COMMIT")
                return result
            except BaseException as exc:
                self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.OperationalError) or (isinstance(exc, sqlite3.Error) and damaged(exc)):
                    raise _error(self.path, exc, f"{self.path.name}: ") from None
                raise

    async def aread(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.to_thread(self.read, fn)

    async def awrite(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.to_thread(self.write, fn)

    def data_version(self) -> int:
        """Changes whenever another connection (this process or another) commits to the file."""
        return int(self.read(lambda c: c.execute("PRAGMA data_version").fetchone()[0]))

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def apply_migrations(db: Database, migrations: Iterable[Migration]) -> list[str]:
    """Apply the migrations not yet recorded, in (area, number) order; returns the names applied."""
    db.write(_ensure_ledger)
    applied: list[str] = []
    for step in _ordered(migrations):

        def run(conn: sqlite3.Connection, step: Migration = step) -> bool:
            done = conn.execute(
                "SELECT 1 FROM schema_migrations WHERE area = ? AND number = ?", (step.area, step.number)
            ).fetchone()
            if done:
                return False
            if isinstance(step.apply, str):
                for statement in _statements(step.apply):
                    conn.execute(statement)
            else:
                step.apply(conn)
            conn.execute(
                "INSERT INTO schema_migrations (area, number, name, applied_at) VALUES (?, ?, ?, ?)",
                (step.area, step.number, step.name, time.time()),
            )
            return True

        if db.write(run):
            log.info("%s: applied migration %s %03d %s", db.path.name, step.area, step.number, step.name)
            applied.append(f"{step.area}/{step.number:03d}_{step.name}")
    return applied


def _ensure_ledger(conn: sqlite3.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " area TEXT NOT NULL, number INTEGER NOT NULL, name TEXT NOT NULL, applied_at REAL NOT NULL,"
        " PRIMARY KEY (area, number))"
    )


def _ordered(migrations: Iterable[Migration]) -> Sequence[Migration]:
    steps = sorted(migrations, key=lambda m: (m.area, m.number))
    seen: set[tuple[str, int]] = set()
    for step in steps:
        if (step.area, step.number) in seen:
            raise ValueError(f"two migrations numbered {step.area} {step.number}")
        seen.add((step.area, step.number))
    return steps


def _statements(script: str) -> list[str]:
    """Split a migration script on `;` (migrations hold no triggers or string literals with `;`)."""
    return [part.strip() for part in script.split(";") if part.strip()]
