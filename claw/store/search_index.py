"""`SearchIndex`: an SQLite FTS5 index of what was said in an agent's sessions, archived ones included.

Derived, never the record: every row comes from a transcript and `rebuild` (`claw sessions reindex`)
recreates it from them, so the file (`<sessions_dir>/search.sqlite`) may be deleted at any time. It
lives beside the transcripts rather than in gateway.db: the index of a busy agent runs to hundreds of
megabytes, and its writes must never hold gateway.db's write lock while the queues want it.

One FTS row per message (user, assistant and system text; tool results are left out: file contents
and command output would drown what was said). A row's rowid is its message's time in microseconds
times 64 (plus a tie-breaker), so "newest first" is FTS5's own rowid order, which it walks without
sorting and stops after `limit` rows, and `--since` is a rowid range: both stay fast with a million rows.

`indexed_sessions` is the ledger: per transcript (by session id) how many entries were taken in and
the key it had then, so an update reads only the new entries, and an archived transcript keeps the
key it was filed under. Writes run in `BEGIN IMMEDIATE` (`claw.store.db`), and a session's update
reads its ledger row inside that transaction, so two processes catching up one session add its
messages once. `synchronous=NORMAL`: a derived file needs no fsync per commit. Prefix indexes of 2 and
3 characters make as-you-type queries (`ba*`) a lookup rather than a merge of every word they start.

The ledger is also kept in memory (`ledger()`, which every search's catch-up asks for): reloaded only
when another connection committed (`PRAGMA data_version`) or this object wrote (`_writes`, checked
around the reload so a write racing it is not lost). The cached dict is replaced, never changed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from claw.store.db import Database, Migration
from claw.store.search_query import HIGHLIGHT_END, HIGHLIGHT_START, Snippet, match_expression, parse_snippet

INDEX_NAME = "search.sqlite"
AREA = "sessions-search"
_TICKS = 64  # rowids per microsecond: room for messages written in the same microsecond

MIGRATIONS = (
    Migration(
        AREA,
        1,
        "message_text",
        "CREATE TABLE indexed_sessions ("
        " session_id TEXT PRIMARY KEY, session_key TEXT, entries INTEGER NOT NULL DEFAULT 0,"
        " messages INTEGER NOT NULL DEFAULT 0, first_id TEXT, archived INTEGER NOT NULL DEFAULT 0);"
        "CREATE VIRTUAL TABLE message_text USING fts5("
        " text, session_id UNINDEXED, entry_id UNINDEXED, position UNINDEXED, role UNINDEXED,"
        " created_at UNINDEXED, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');"
        "CREATE TABLE index_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ),
)


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One message that matched: where it is, when it was said, and the snippet around the match."""

    session_id: str
    session_key: str | None
    entry_id: str | None
    position: int
    """The entry's index in its transcript (0-based)."""
    role: str
    created_at: str
    snippet: Snippet


@dataclass(frozen=True, slots=True)
class LedgerRow:
    session_key: str | None
    entries: int
    messages: int
    first_id: str | None
    archived: bool


def entry_text(entry: dict[str, Any]) -> str | None:
    """The searchable text of a transcript entry, or None for entries that are not searched."""
    role = entry.get("role")
    if role not in ("user", "assistant", "system"):
        return None
    content = entry.get("display") if role == "user" and isinstance(entry.get("display"), str) else None
    content = content if content is not None else entry.get("content")
    if isinstance(content, list):
        content = "\n".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    if not isinstance(content, str) or not content.strip():
        return None
    return content.replace(HIGHLIGHT_START, "").replace(HIGHLIGHT_END, "")


def stamp_rowid(created_at: Any) -> int:
    """The rowid slot of a message written at `created_at` (0 when it has no readable time)."""
    if not isinstance(created_at, str):
        return 0
    try:
        moment = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return 0
    return max(0, int(moment.timestamp() * 1_000_000)) * _TICKS


class SearchIndex:
    """The FTS index of one agent's sessions (see the module docstring). Thread-safe (one locked connection)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.db = Database(self.path, MIGRATIONS)
        self.db.read(lambda c: c.execute("PRAGMA synchronous = NORMAL"))
        self._ledger: dict[str, LedgerRow] | None = None
        self._ledger_version = -1
        self._writes = 0

    # -- writing ----------------------------------------------------------------

    def sync(
        self, session_id: str, session_key: str | None, entries: Sequence[dict[str, Any]], *, archived: bool = False
    ) -> int:
        """Take in what `entries` (a transcript's, in file order) add since the last sync of `session_id`;
        the number of messages added. A transcript that no longer starts as it did is indexed afresh."""
        first_id = entries[0].get("id") if entries else None

        def write(conn: sqlite3.Connection) -> int:
            row = _ledger_row(conn, session_id)
            start = 0
            if row is not None and row.first_id == first_id and row.entries <= len(entries):
                start = row.entries
            elif row is not None and row.entries:
                conn.execute("DELETE FROM message_text WHERE session_id = ?", (session_id,))
            added = messages = 0
            for position in range(start, len(entries)):
                entry = entries[position]
                messages += "role" in entry
                text = entry_text(entry)
                if text is not None:
                    _insert(conn, session_id, position, entry, text)
                    added += 1
            key = session_key if session_key is not None else (row.session_key if row else None)
            total = messages + (row.messages if row is not None and start else 0)
            conn.execute(
                "INSERT INTO indexed_sessions (session_id, session_key, entries, messages, first_id, archived)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET session_key = excluded.session_key,"
                " entries = excluded.entries, messages = excluded.messages, first_id = excluded.first_id,"
                " archived = excluded.archived",
                (session_id, key, len(entries), total, first_id, int(archived)),
            )
            self._writes += 1  # (under the database's lock)
            self._ledger = None
            return added

        return self.db.write(write)

    def clear(self) -> None:
        """Forget every indexed message, keeping the keys the ledger knows (an archived transcript's key is
        nowhere else), so a rebuild finds the same sessions under the same keys."""

        def wipe(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM message_text")
            conn.execute("UPDATE indexed_sessions SET entries = 0, messages = 0, first_id = NULL, archived = 0")
            conn.execute("DELETE FROM index_meta")

        self.db.write(wipe)
        self._writes += 1
        self._ledger = None

    def set_meta(self, name: str, value: str) -> None:
        sql = "INSERT OR REPLACE INTO index_meta (name, value) VALUES (?, ?)"
        self.db.write(lambda c: c.execute(sql, (name, value)))

    # -- reading ----------------------------------------------------------------

    def meta(self, name: str) -> str | None:
        row = self.db.read(lambda c: c.execute("SELECT value FROM index_meta WHERE name = ?", (name,)).fetchone())
        return None if row is None else str(row[0])

    def ledger(self) -> dict[str, LedgerRow]:
        """Every indexed transcript by session id (a copy of the cache; see the module docstring)."""
        version, writes, cached = self.db.data_version(), self._writes, self._ledger
        if cached is not None and version == self._ledger_version:
            return dict(cached)
        rows = self.db.read(lambda c: c.execute("SELECT * FROM indexed_sessions").fetchall())
        fresh = {r["session_id"]: _row(r) for r in rows}
        if writes == self._writes:  # no write of ours since: the cache may keep it
            self._ledger, self._ledger_version = fresh, version
        return dict(fresh)

    def search(self, query: str, *, limit: int = 20, since: str | None = None, prefix: bool = False) -> list[SearchHit]:
        """Messages matching every word of `query`, newest first; `since` an ISO time; `prefix`: the last
        word may be the start of a longer one (as-you-type search)."""
        expression = match_expression(query, prefix=prefix)
        if expression is None:
            return []
        sql = (
            "SELECT session_id, entry_id, position, role, created_at,"
            f" snippet(message_text, 0, '{HIGHLIGHT_START}', '{HIGHLIGHT_END}', '…', 24) AS snip"
            " FROM message_text WHERE message_text MATCH ?"
        )
        args: list[Any] = [expression]
        if since is not None:
            sql += " AND rowid >= ?"
            args.append(stamp_rowid(since))
        sql += " ORDER BY rowid DESC LIMIT ?"
        args.append(max(1, limit))

        def query_rows(conn: sqlite3.Connection) -> tuple[list[sqlite3.Row], dict[str, str | None]]:
            found = conn.execute(sql, args).fetchall()
            ids = sorted({r["session_id"] for r in found})
            keys: dict[str, str | None] = {}
            for chunk in range(0, len(ids), 500):
                part = ids[chunk : chunk + 500]
                marks = ",".join("?" * len(part))
                for r in conn.execute(
                    f"SELECT session_id, session_key FROM indexed_sessions WHERE session_id IN ({marks})", part
                ):
                    keys[r[0]] = r[1]
            return found, keys

        found, keys = self.db.read(query_rows)
        return [
            SearchHit(
                session_id=r["session_id"],
                session_key=keys.get(r["session_id"]),
                entry_id=r["entry_id"],
                position=int(r["position"]),
                role=r["role"],
                created_at=r["created_at"] or "",
                snippet=parse_snippet(r["snip"]),
            )
            for r in found
        ]

    def message_rows(self) -> int:
        return int(self.db.read(lambda c: c.execute("SELECT count(*) FROM message_text").fetchone()[0]))

    def close(self) -> None:
        self.db.close()


def _insert(conn: sqlite3.Connection, session_id: str, position: int, entry: dict[str, Any], text: str) -> None:
    rowid = stamp_rowid(entry.get("createdAt"))
    values = (session_id, entry.get("id"), position, entry.get("role"), entry.get("createdAt"), text)
    while True:
        try:
            conn.execute(
                "INSERT INTO message_text (rowid, session_id, entry_id, position, role, created_at, text)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (rowid, *values),
            )
            return
        except sqlite3.IntegrityError:  # another message in the same microsecond: the next slot
            rowid += 1


def _ledger_row(conn: sqlite3.Connection, session_id: str) -> LedgerRow | None:
    found = conn.execute("SELECT * FROM indexed_sessions WHERE session_id = ?", (session_id,)).fetchone()
    return None if found is None else _row(found)


def _row(r: sqlite3.Row) -> LedgerRow:
    return LedgerRow(r["session_key"], int(r["entries"]), int(r["messages"]), r["first_id"], bool(r["archived"]))
