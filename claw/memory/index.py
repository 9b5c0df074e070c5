"""`MemoryIndex`: one agent's memory files as chunks in SQLite, kept in sync incrementally.

Sync walks the memory files and compares each with what the index recorded (nothing at all
when no stamp changed since the last sync and no other process wrote to the index): same size and
mtime → skipped without reading; same content hash → only the stamp is updated; otherwise
the file's chunks are replaced. Vectors of chunks whose text and headings did not change are carried
over, so editing one line re-embeds only the chunks around it. Changing the chunking
settings or the chunker itself (`CHUNKER_VERSION`, recorded with the settings) rebuilds
everything, so an index written by an older claw re-cuts its files on the first sync after
an upgrade; changing the embeddings model drops the old vectors. All
methods are blocking and thread-safe: call them through `asyncio.to_thread`.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from claw.memory.chunker import CHUNKER_VERSION, blank_comments, chunk_markdown, embedding_input, text_hash
from claw.memory.embeddings import Embedder, EmbeddingError
from claw.memory.files import MemoryFile, list_memory_files
from claw.memory.schema import connect
from claw.memory.vectors import VectorTable, normalise, pack
from claw.paths import ensure_private_dir
from claw.safe_read import RefusedFile, read_agent_text, skip_warning

log = logging.getLogger(__name__)

EMBED_COMMIT_BATCH = 256
EMBED_RETRY_SECONDS = 60


@dataclass(slots=True)
class SyncReport:
    """What one sync did."""

    files: int = 0
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    chunks_written: int = 0
    embedded: int = 0
    embedding_error: str | None = None
    rebuilt: bool = False

    def to_json(self) -> dict[str, object]:
        return {
            "files": self.files,
            "changed": self.changed,
            "removed": self.removed,
            "chunksWritten": self.chunks_written,
            "embedded": self.embedded,
            "embeddingError": self.embedding_error,
            "rebuilt": self.rebuilt,
        }


class MemoryIndex:
    """The index at `db_path` over the memory files of `workspace`."""

    def __init__(
        self,
        db_path: Path,
        workspace: Path,
        *,
        chunk_tokens: int = 400,
        chunk_overlap: int = 80,
        embedder: Embedder | None = None,
    ) -> None:
        self.db_path = Path(db_path)
        self.workspace = Path(workspace)
        self.chunk_tokens = chunk_tokens
        self.chunk_overlap = chunk_overlap
        self.embedder = embedder
        self.lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._vectors: tuple[tuple[int, int], VectorTable] | None = None
        self._embed_retry_at = 0.0
        self.generation = 0
        """Bumped whenever chunks or vectors change (caches key on it)."""
        self._in_sync: tuple[int, list[tuple[str, int, int]]] | None = None
        """What the last complete sync saw: other connections' write count, each file's stamp."""

    # -- connection -------------------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        with self.lock:
            if self._conn is None:
                ensure_private_dir(self.db_path.parent)
                try:
                    self._conn = connect(str(self.db_path))
                except sqlite3.DatabaseError as exc:  # derived data: start again rather than fail
                    log.warning("memory index %s unusable (%s); rebuilding it", self.db_path, exc)
                    for suffix in ("", "-wal", "-shm"):
                        Path(f"{self.db_path}{suffix}").unlink(missing_ok=True)
                    self._conn = connect(str(self.db_path))
                os.chmod(self.db_path, 0o600)
            return self._conn

    def close(self) -> None:
        with self.lock:
            self._in_sync = None  # data_version counts per connection
            if self._conn is not None:
                self._conn.close()
                self._conn = None
        if self.embedder is not None:
            self.embedder.close()

    # -- sync -------------------------------------------------------------------------

    def sync(self, *, force: bool = False) -> SyncReport:
        """Bring the index up to date with the files (from scratch with `force`), then embed new chunks.

        Recall syncs before every turn's search, so the common case is cheap: when the files' stamps
        match the last complete sync and no other connection has written since, nothing is opened."""
        with self.lock:
            conn = self.conn
            files = list_memory_files(self.workspace)
            seen = self._seen(files)
            if not force and seen == self._in_sync:
                return SyncReport(files=len(files))
            self._in_sync = None
            report = SyncReport()
            conn.execute("BEGIN IMMEDIATE")
            try:
                report.rebuilt = self._check_settings(conn, force)
                self._sync_files(conn, files, report)
                if report.changed or report.removed or report.rebuilt:
                    _set_meta(conn, "indexedAt", datetime.now(UTC).isoformat(timespec="seconds"))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            if report.changed or report.removed or report.rebuilt:
                self.generation += 1
            self._embed_missing(report)
            if report.embedding_error is None and (self.embedder is None or self.embeddings_ready()):
                self._in_sync = seen  # our own commits leave data_version as it was
            return report

    def in_sync(self) -> bool:
        """Whether a sync now would find nothing to do: the check `sync` starts with, alone."""
        with self.lock:
            return self._in_sync is not None and self._seen(list_memory_files(self.workspace)) == self._in_sync

    @property
    def files_seen(self) -> int:
        """How many memory files the last complete sync found (0 before one)."""
        return len(self._in_sync[1]) if self._in_sync is not None else 0

    def _seen(self, files: list[MemoryFile]) -> tuple[int, list[tuple[str, int, int]]]:
        """Other connections' write count and each file's stamp: what a sync that changed nothing leaves."""
        return self.conn.execute("PRAGMA data_version").fetchone()[0], [(f.rel, f.mtime_ns, f.size) for f in files]

    def _check_settings(self, conn: sqlite3.Connection, force: bool) -> bool:
        chunking = json.dumps({"chunker": CHUNKER_VERSION, "tokens": self.chunk_tokens, "overlap": self.chunk_overlap})
        rebuild = force or _get_meta(conn, "chunking") != chunking
        if rebuild:
            conn.execute("DELETE FROM chunks")
            conn.execute("DELETE FROM files")
            _set_meta(conn, "chunking", chunking)
        model = self.embedder.model if self.embedder else None
        stored = _get_meta(conn, "embeddingModel")
        if model is not None and stored != model:
            conn.execute("UPDATE chunks SET embedding = NULL")
            _set_meta(conn, "embeddingModel", model)
        return rebuild

    def _sync_files(self, conn: sqlite3.Connection, files: list[MemoryFile], report: SyncReport) -> None:
        known = {row[0]: row[1:] for row in conn.execute("SELECT path, hash, mtime_ns, size FROM files")}
        report.files = len(files)
        for mf in files:
            old = known.pop(mf.rel, None)
            if old is not None and old[1] == mf.mtime_ns and old[2] == mf.size:
                continue
            # The agent writes its notes: read by that rule (claw.safe_read), by the name the listing found, so a
            # link swapped in or a FIFO planted since is skipped with a warning, never followed or waited on.
            try:
                text = read_agent_text(self.workspace, mf.rel)
            except RefusedFile as refused:
                skip_warning(refused, "memory file")
                continue
            if text is None:
                continue
            digest = text_hash(text)
            now = datetime.now(UTC).isoformat(timespec="seconds")
            if old is not None and old[0] == digest:
                stamp = (mf.mtime_ns, mf.size, mf.rel)
                conn.execute("UPDATE files SET mtime_ns = ?, size = ? WHERE path = ?", stamp)
                continue
            report.chunks_written += self._replace_chunks(conn, mf.rel, text)
            count = conn.execute("SELECT count(*) FROM chunks WHERE path = ?", (mf.rel,)).fetchone()[0]
            conn.execute(
                "INSERT OR REPLACE INTO files (path, hash, mtime_ns, size, chunks, indexed_at) VALUES (?,?,?,?,?,?)",
                (mf.rel, digest, mf.mtime_ns, mf.size, count, now),
            )
            report.changed.append(mf.rel)
        for gone in known:
            conn.execute("DELETE FROM chunks WHERE path = ?", (gone,))
            conn.execute("DELETE FROM files WHERE path = ?", (gone,))
            report.removed.append(gone)

    def _replace_chunks(self, conn: sqlite3.Connection, rel: str, text: str) -> int:
        query = "SELECT hash, embedding FROM chunks WHERE path = ? AND embedding IS NOT NULL"
        reusable = dict(conn.execute(query, (rel,)).fetchall())
        conn.execute("DELETE FROM chunks WHERE path = ?", (rel,))
        chunks = chunk_markdown(blank_comments(text), self.chunk_tokens, self.chunk_overlap)
        conn.executemany(
            "INSERT INTO chunks (path, start_line, end_line, hash, text, heading, embedding) VALUES (?,?,?,?,?,?,?)",
            [(rel, c.start_line, c.end_line, c.hash, c.text, c.heading, reusable.get(c.hash)) for c in chunks],
        )
        return len(chunks)

    def _embed_missing(self, report: SyncReport) -> None:
        if self.embedder is None or not self.embeddings_ready():
            return
        query = "SELECT id, heading, text FROM chunks WHERE embedding IS NULL ORDER BY id"
        rows = self.conn.execute(query).fetchall()
        for start in range(0, len(rows), EMBED_COMMIT_BATCH):
            batch = rows[start : start + EMBED_COMMIT_BATCH]
            try:
                vectors = self.embedder.embed([embedding_input(heading, text) for _, heading, text in batch])
            except EmbeddingError as exc:
                report.embedding_error = self.embeddings_failed(exc)
                return
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.executemany(
                    "UPDATE chunks SET embedding = ? WHERE id = ?",
                    [(pack(normalise(v)), row[0]) for row, v in zip(batch, vectors, strict=True)],
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            report.embedded += len(batch)
            self.generation += 1

    def embeddings_ready(self) -> bool:
        """False for a while after the endpoint failed, so that every search does not wait on it again."""
        return time.monotonic() >= self._embed_retry_at

    def embeddings_failed(self, exc: EmbeddingError) -> str:
        self._embed_retry_at = time.monotonic() + EMBED_RETRY_SECONDS
        log.warning("memory: %s (keyword-only for %d s)", exc.message, EMBED_RETRY_SECONDS)
        return exc.message

    # -- reading ----------------------------------------------------------------------

    def vectors(self) -> VectorTable:
        """Every stored vector, cached until this process or another one changes the index."""
        with self.lock:
            key = (self.generation, self.conn.execute("PRAGMA data_version").fetchone()[0])
            if self._vectors is None or self._vectors[0] != key:
                rows = self.conn.execute("SELECT id, embedding FROM chunks WHERE embedding IS NOT NULL").fetchall()
                self._vectors = (key, VectorTable([r[0] for r in rows], [r[1] for r in rows]))
            return self._vectors[1]

    def status(self) -> dict[str, object]:
        with self.lock:
            conn = self.conn
            files = conn.execute("SELECT count(*) FROM files").fetchone()[0]
            chunks, vectors = conn.execute("SELECT count(*), count(embedding) FROM chunks").fetchone()
            return {
                "files": files,
                "chunks": chunks,
                "vectors": vectors,
                "lastIndexed": _get_meta(conn, "indexedAt"),
                "embeddingModel": _get_meta(conn, "embeddingModel"),
            }


def _get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def _set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))
