"""`sessions.sqlite`: an agent's session index as SQLite rows, one per session key.

A turn reads and writes the rows of its own session, so its cost does not grow with the number of
sessions (the `sessions.json` this replaces was read whole and rewritten whole, several times a turn:
~0.4 ms of CPU and 20 KB of memory per stored session, on every turn). The file is opened like
gateway.db (`claw.store.db`): WAL, a busy timeout, `BEGIN IMMEDIATE` writes, numbered migrations.
Readers use a connection of their own, so a write waiting on the disk never holds them up.

Data many sessions share is stored once: the lists and objects inside an entry's `extra[key]` for the
keys in `SHARED_EXTRA` (the skills snapshot, 1.95 KB a session and the same for every session that
saw the same skills) go into `shared`, keyed by their content hash, and the entry keeps the scalars
and the hash. Readers get the entry back whole.

The first open of an agent's sessions imports its `sessions.json` (the previous format) in the same
transaction as the migration's record, then moves the file aside as `sessions.json.migrated-<time>`.
Nothing outside claw reads the file (OpenClaw reads its own state dir, and now keeps its index in
SQLite too), so no `sessions.json` is written any more.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from claw.store.db import Database, Migration
from claw.store.index_file import SessionIndexFile, compact_utc
from claw.store.session_entry import SessionEntry

log = logging.getLogger(__name__)

DB_NAME = "sessions.sqlite"
JSON_NAME = "sessions.json"
SHARED_EXTRA = ("skillsSnapshot",)
_REF = "$shared"
_PUT_ROW = "INSERT OR REPLACE INTO sessions (key, session_id, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?)"

_SCHEMA = """
CREATE TABLE sessions (
    key TEXT PRIMARY KEY, session_id TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    data TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_by_update ON sessions (updated_at DESC, created_at DESC);
CREATE TABLE unparsed (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE shared (hash TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID
"""


@dataclass(slots=True)
class Slots:
    """Index content for some keys: parsed entries, and values that could not be parsed (kept verbatim)."""

    entries: dict[str, SessionEntry] = field(default_factory=dict)
    unparsed: dict[str, Any] = field(default_factory=dict)

    def copy(self) -> Slots:
        return Slots(dict(self.entries), dict(self.unparsed))


Change = Callable[[Slots], Any]
"""One change to the index, as a function of the slots it is applied to (the key's current entry), so it
can be applied again to a newer copy read from disk; it may return what it replaced or removed."""


class SessionTable:
    """The rows of `sessions.sqlite` (see the module docstring); thread-safe."""

    def __init__(self, sessions_dir: Path) -> None:
        self.sessions_dir = Path(sessions_dir)
        self.path = self.sessions_dir / DB_NAME
        json_path = self.sessions_dir / JSON_NAME
        steps = (
            Migration("sessions", 1, "create", _SCHEMA),
            Migration("sessions", 2, "import_sessions_json", lambda conn: _import_json(conn, json_path)),
        )
        self._writer = Database(self.path, steps)
        self._reader = Database(self.path)
        self._codec = _Codec()
        if json_path.exists():  # imported (by this open or an earlier one): keep it only as a backup
            _move_aside(json_path)

    # -- reading ------------------------------------------------------------------

    def load(self, keys: Iterable[str]) -> Slots:
        """The rows of `keys` (those that exist)."""
        wanted = list(keys)
        return self._reader.read(lambda conn: self._load(conn, wanted))

    def load_all(self) -> Slots:
        return self._reader.read(lambda conn: self._load(conn, None))

    def rows(self, *, shared: bool = True) -> Iterator[SessionEntry]:
        """Every parsed entry, most recently updated first, read in pages (a listing streams them).
        `shared=False` leaves out the values stored once for many entries (`SHARED_EXTRA`: the skills
        snapshot), which a listing does not show and which cost most of the parsing."""
        after: tuple[str, str, str] | None = None
        while True:
            page = self._reader.read(partial(self._page, after=after, shared=shared))
            yield from page
            if len(page) < _PAGE:
                return
            last = page[-1]
            after = (last.updated_at, last.created_at, last.session_key)

    # -- writing ------------------------------------------------------------------

    def write(self, changes: list[tuple[str, Change]], ready: Callable[[Slots], None]) -> list[Any]:
        """Apply `changes` (key, change) to the rows in one transaction; their results in order.
        `ready` gets the keys' new content just before the commit (the store shows it to readers)."""
        keys = list(dict.fromkeys(key for key, _ in changes))

        def run(conn: sqlite3.Connection) -> list[Any]:
            slots = self._load(conn, keys)
            results = [change(slots) for _, change in changes]
            for key in keys:
                self._store(conn, key, slots)
            ready(slots)
            return results

        return self._writer.write(run)

    def close(self) -> None:
        self._writer.close()
        self._reader.close()

    # -- rows <-> entries ---------------------------------------------------------

    def _load(self, conn: sqlite3.Connection, keys: list[str] | None) -> Slots:
        slots = Slots()
        if keys is None:
            rows = conn.execute("SELECT key, data FROM sessions").fetchall()
            bad = conn.execute("SELECT key, value FROM unparsed").fetchall()
        else:
            rows, bad = [], []
            for key in keys:
                rows += conn.execute("SELECT key, data FROM sessions WHERE key = ?", (key,)).fetchall()
                bad += conn.execute("SELECT key, value FROM unparsed WHERE key = ?", (key,)).fetchall()
        for key, data in rows:
            slots.entries[key] = self._codec.decode(conn, key, data)
        for key, value in bad:
            slots.unparsed[key] = json.loads(value)
        return slots

    def _page(self, conn: sqlite3.Connection, after: tuple[str, str, str] | None, shared: bool) -> list[SessionEntry]:
        sql = "SELECT key, data FROM sessions"
        if after is not None:
            sql += " WHERE (updated_at, created_at, key) < (?, ?, ?)"
        sql += f" ORDER BY updated_at DESC, created_at DESC, key DESC LIMIT {_PAGE}"
        rows = conn.execute(sql, after or ()).fetchall()
        return [self._codec.decode(conn, key, data, shared=shared) for key, data in rows]

    def _store(self, conn: sqlite3.Connection, key: str, slots: Slots) -> None:
        entry = slots.entries.get(key)
        if entry is None:
            conn.execute("DELETE FROM sessions WHERE key = ?", (key,))
        else:
            data = self._codec.encode(conn, entry)
            conn.execute(
                _PUT_ROW,
                (key, entry.session_id, entry.created_at, entry.updated_at, data),
            )
        if key in slots.unparsed and entry is None:
            value = json.dumps(slots.unparsed[key])
            conn.execute("INSERT OR REPLACE INTO unparsed (key, value) VALUES (?, ?)", (key, value))
        else:
            conn.execute("DELETE FROM unparsed WHERE key = ?", (key,))


_PAGE = 2000


class _Codec:
    """Entries to rows and back, with the shared values stored once (a cache of them, by hash: they never change)."""

    def __init__(self) -> None:
        self._shared: dict[str, str] = {}  # hash → the value's JSON text
        self._lock = threading.Lock()

    def encode(self, conn: sqlite3.Connection, entry: SessionEntry) -> str:
        data = entry.to_json()
        del data["sessionKey"]
        extra = dict(data["extra"])
        for name in SHARED_EXTRA:
            value = extra.get(name)
            if isinstance(value, dict):
                extra[name] = self._share(conn, value)
        data["extra"] = extra
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)

    def _share(self, conn: sqlite3.Connection, value: dict[str, Any]) -> dict[str, Any]:
        """`value`'s scalars and a reference to its lists and objects, stored once by content hash."""
        inline = {k: v for k, v in value.items() if not isinstance(v, (dict, list))}
        bulk = {k: v for k, v in value.items() if isinstance(v, (dict, list))}
        raw = json.dumps(bulk, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = hashlib.blake2b(raw.encode(), digest_size=16).hexdigest()
        with self._lock:
            known = digest in self._shared
        if not known:
            conn.execute("INSERT OR IGNORE INTO shared (hash, value) VALUES (?, ?)", (digest, raw))
        return {**inline, _REF: digest}

    def decode(self, conn: sqlite3.Connection, key: str, data: str, *, shared: bool = True) -> SessionEntry:
        value = json.loads(data)
        extra = value.get("extra")
        if isinstance(extra, dict):
            for name in SHARED_EXTRA:
                stored = extra.get(name)
                if isinstance(stored, dict) and _REF in stored:
                    if not shared:
                        del extra[name]
                        continue
                    inline = {k: v for k, v in stored.items() if k != _REF}
                    extra[name] = {**inline, **self._shared_value(conn, stored[_REF])}
        return SessionEntry.from_json(key, value)

    def _shared_value(self, conn: sqlite3.Connection, digest: str) -> dict[str, Any]:
        """The shared value `digest`, parsed afresh each time (entries are handed out; the cache is not)."""
        with self._lock:
            raw = self._shared.get(digest)
        if raw is None:
            row = conn.execute("SELECT value FROM shared WHERE hash = ?", (digest,)).fetchone()
            if row is None:
                return {}
            raw = row[0]
            with self._lock:
                self._shared[digest] = raw
        value: dict[str, Any] = json.loads(raw)
        return value


def _import_json(conn: sqlite3.Connection, path: Path) -> None:
    """Migration 2: the entries of the `sessions.json` beside the database (if any) become rows.
    A corrupt file is moved aside by `SessionIndexFile` (as it always was) and nothing is imported."""
    loaded = SessionIndexFile(path).load()  # also removes leftover temp files of the old writer
    codec = _Codec()
    for key, entry in loaded.entries.items():
        conn.execute(
            _PUT_ROW,
            (key, entry.session_id, entry.created_at, entry.updated_at, codec.encode(conn, entry)),
        )
    for key, value in loaded.unparsed.items():
        conn.execute("INSERT OR REPLACE INTO unparsed (key, value) VALUES (?, ?)", (key.lower(), json.dumps(value)))
    if loaded.entries or loaded.unparsed:
        log.info("%s: imported %d sessions into %s", path, len(loaded.entries) + len(loaded.unparsed), DB_NAME)


def _move_aside(path: Path) -> None:
    target = path.with_name(f"{path.name}.migrated-{compact_utc()}")
    try:
        os.rename(path, target)
    except FileNotFoundError:  # another process moved it first
        return
    log.warning("%s was imported into %s; the old file is kept as %s", path, DB_NAME, target)
