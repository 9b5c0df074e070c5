"""The memory index's SQLite schema, as numbered migrations recorded in the database.

`chunks` holds the text, the headings it sits under and (optionally) a float32 embedding per
chunk; `chunks_fts` is an external-content FTS5 table over the text and the headings, kept in
step by triggers. The whole database is derived from the memory files: when it cannot be opened
it is rebuilt, and a migration that changes what a chunk is simply empties it (the next sync
re-reads every file). How chunks are cut is versioned separately (`CHUNKER_VERSION`, checked by
the index on every sync), so a new chunker needs no migration.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from claw.store.db import enable_wal

BUSY_TIMEOUT_MS = 5_000

MIGRATIONS: tuple[str, ...] = (
    # 1: files, chunks, FTS over chunks, settings
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE files (
        path TEXT PRIMARY KEY,
        hash TEXT NOT NULL,
        mtime_ns INTEGER NOT NULL,
        size INTEGER NOT NULL,
        chunks INTEGER NOT NULL,
        indexed_at TEXT NOT NULL
    );
    CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        hash TEXT NOT NULL,
        text TEXT NOT NULL,
        embedding BLOB
    );
    CREATE INDEX chunks_by_path ON chunks(path);
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
        text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    """,
    # 2: chunks cut by heading carry their heading titles, searchable in a second FTS column. The old
    # whole-run-of-lines chunks are dropped rather than converted: the next sync re-chunks every file.
    """
    DROP TRIGGER chunks_after_insert;
    DROP TRIGGER chunks_after_delete;
    DROP TABLE chunks_fts;
    DELETE FROM chunks;
    DELETE FROM files;
    ALTER TABLE chunks ADD COLUMN heading TEXT NOT NULL DEFAULT '';
    CREATE VIRTUAL TABLE chunks_fts USING fts5(
        text, heading, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2'
    );
    CREATE TRIGGER chunks_after_insert AFTER INSERT ON chunks BEGIN
        INSERT INTO chunks_fts(rowid, text, heading) VALUES (new.id, new.text, new.heading);
    END;
    CREATE TRIGGER chunks_after_delete AFTER DELETE ON chunks BEGIN
        INSERT INTO chunks_fts(chunks_fts, rowid, text, heading) VALUES ('delete', old.id, old.text, old.heading);
    END;
    """,
)


def connect(path: str) -> sqlite3.Connection:
    """Open (creating if needed) and migrate the index at `path`; WAL mode, busy timeout, autocommit."""
    conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        enable_wal(conn)  # a fresh file and another connection switching it too: wait, do not fail
        conn.execute("PRAGMA synchronous = NORMAL")
        migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the migrations not yet recorded; returns the schema version."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
    done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    for version, script in enumerate(MIGRATIONS, start=1):
        if version in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Another process may have migrated between our read and the lock.
            if conn.execute("SELECT 1 FROM schema_migrations WHERE version = ?", (version,)).fetchone() is None:
                for statement in _statements(script):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    (version, datetime.now(UTC).isoformat()),
                )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return len(MIGRATIONS)


def _statements(script: str) -> list[str]:
    """Split a migration into statements (`executescript` would commit our transaction)."""
    out: list[str] = []
    current: list[str] = []
    for line in script.strip().splitlines():
        current.append(line)
        candidate = "\n".join(current).strip()
        if candidate.endswith(";") and sqlite3.complete_statement(candidate):
            out.append(candidate)
            current = []
    if "\n".join(current).strip():
        out.append("\n".join(current).strip())
    return out
