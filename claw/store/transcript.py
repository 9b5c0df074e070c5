"""A session transcript: append-only JSONL, one message (or compaction marker) per line."""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from claw.paths import ensure_private_dir
from claw.store.jsonl import ParsedChunk, encode_line, parse_chunk
from claw.store.turn_state import OpenTurn, TurnTracker

log = logging.getLogger(__name__)

Entry = dict[str, Any]

_SAMPLE = 64  # bytes before the read offset remembered, to notice a rewritten prefix
_OPEN_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0)


def utc_now_iso() -> str:
    """Now, as ISO-8601 UTC with a `Z` suffix (the `createdAt` format)."""
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def new_entry_id() -> str:
    """A fresh 8-hex-digit transcript entry id."""
    return secrets.token_hex(4)


def _stat_key(st: os.stat_result) -> tuple[int, int, int]:
    return (st.st_ino, st.st_size, st.st_mtime_ns)


class Transcript:
    """One session's transcript file.

    `append` writes each entry as one line with a single `os.write` on an O_APPEND
    descriptor kept open between calls, so a crash loses at most the line being written,
    and a torn last line left by an earlier crash is closed off with a newline first.
    `read` tolerates damage (see `claw.store.jsonl`) and is cached by the file's
    (inode, size, mtime_ns): appends made here extend the cache, a file that grew behind
    our back is parsed from where we stopped, anything else is re-read in full.
    Returned entries are shared with the cache: treat them as read-only.
    Thread-safe, so it may be used from `asyncio.to_thread`.

    The cache also follows where the last turn stands (`open_turn`, see `claw.store.turn_state`).
    `on_first_use`, if given, runs once, before the first read, count or append of this object (the
    session store closes a turn that a dead process left open there); `read_cached` does not count,
    since it answers only after a read.
    """

    # The read cache, set by `_reset_cache`: where the last read stopped and the file it read.
    _offset: int
    _sample: bytes
    _ino: int | None
    _key: tuple[int, int, int] | None

    def __init__(self, path: Path, *, on_first_use: Callable[[], None] | None = None) -> None:
        self.path = Path(path)
        self.last_read_skipped = 0  # malformed lines plus a torn tail, as of the last read
        self.lines_parsed = 0  # json.loads calls made by reads (a cache hit adds none)
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._on_first_use = on_first_use
        self._reset_cache()

    @property
    def first_use_pending(self) -> bool:
        """True until `on_first_use` has run (always False without one)."""
        return self._on_first_use is not None

    def skip_first_use(self) -> None:
        """Drop `on_first_use` unrun: for a caller about to do that work itself (and wanting its result)."""
        with self._lock:
            self._on_first_use = None

    def _first_use(self) -> None:
        if self._on_first_use is None:  # the common case, without taking the lock
            return
        with self._lock:
            hook, self._on_first_use = self._on_first_use, None
        if hook is not None:
            hook()

    # -- writing ----------------------------------------------------------------

    def append(self, entry: Entry) -> Entry:
        """Add `entry` (given an `id` and `createdAt` if missing); returns it as written."""
        self._first_use()
        record = dict(entry)
        record.setdefault("createdAt", utc_now_iso())
        with self._lock:
            if "id" not in record:
                self._refresh()  # a cache hit in the common case; ids must be unique in the file
                record["id"] = new_entry_id()
                while record["id"] in self._ids:
                    record["id"] = new_entry_id()
            line = encode_line(record)
            record = json.loads(line)  # exactly what a reader will see (e.g. repaired surrogates)
            fd = self._open()
            before = os.fstat(fd)
            data = line if self._ends_with_newline(before) else b"\n" + line
            written = os.write(fd, data)
            if written != len(data):
                raise OSError(f"short write to {self.path}: {written} of {len(data)} bytes")
            self._extend_cache(before, os.fstat(fd), data, record)
        return dict(record)

    def close(self) -> None:
        """Close the append descriptor (a later append reopens it)."""
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> Transcript:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _open(self) -> int:
        if self._fd is not None:
            try:
                if os.stat(self.path).st_ino == os.fstat(self._fd).st_ino:
                    return self._fd
            except FileNotFoundError:
                pass
            # The file was moved or replaced behind us: write where the path points now.
            os.close(self._fd)
            self._fd = None
        ensure_private_dir(self.path.parent)
        self._fd = os.open(self.path, _OPEN_FLAGS, 0o600)
        return self._fd

    def _ends_with_newline(self, st: os.stat_result) -> bool:
        if st.st_size == 0:
            return True
        if self._key == _stat_key(st) and self._offset == st.st_size and self._sample:
            return self._sample.endswith(b"\n")
        with open(self.path, "rb") as handle:
            handle.seek(st.st_size - 1)
            return handle.read(1) == b"\n"

    def _extend_cache(self, before: os.stat_result, after: os.stat_result, data: bytes, record: Entry) -> None:
        fresh_file = before.st_size == 0 and self._offset == 0 and not self._entries and not self._skipped
        in_step = self._key == _stat_key(before) and self._offset == before.st_size
        if (fresh_file or in_step) and after.st_size == before.st_size + len(data):
            self._entries.append(record)
            self._messages += "role" in record
            self._turns.feed(record)
            self._ids.add(record["id"])
            self._offset = after.st_size
            self._sample = (self._sample + data)[-_SAMPLE:]
            self._ino = after.st_ino
            self._key = _stat_key(after)
        # Otherwise someone else wrote too: the next read catches up from the file.

    # -- reading ----------------------------------------------------------------

    def read(self) -> list[Entry]:
        """Every readable entry, in file order."""
        self._first_use()
        with self._lock:
            self._refresh()
            return list(self._entries)

    def read_cached(self) -> list[Entry] | None:
        """`read()` when that needs no parsing: the file is as this object last saw it (one stat).
        None when it changed behind our back, or another thread is reading it now; then call `read`,
        off the event loop. Lets the loop skip a thread hand-off on every turn of a busy session."""
        if not self._lock.acquire(blocking=False):
            return None
        try:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                return None
            return list(self._entries) if _stat_key(st) == self._key else None
        finally:
            self._lock.release()

    def tail(self, n: int) -> list[Entry]:
        """The last `n` entries."""
        return self.read()[-n:] if n > 0 else []

    def open_turn(self) -> OpenTurn | None:
        """The turn the transcript ends inside of (started, not finished), or None; a cache hit costs a stat."""
        self._first_use()
        with self._lock:
            self._refresh()
            return self._turns.state()

    def message_count(self) -> int:
        """How many entries are messages (have a `role`), as opposed to markers like compactions and
        partial replies: the session index's `messageCount`."""
        self._first_use()
        with self._lock:  # kept up to date with the cache: every turn asks, and 10,000 entries take ms to count
            self._refresh()
            return self._messages

    def _reset_cache(self) -> None:
        self._entries: list[Entry] = []
        self._messages = 0  # entries with a `role`
        self._turns = TurnTracker()
        self._ids: set[str] = set()
        self._skipped = 0
        self._offset = 0
        self._ino = None
        self._key = None
        self._sample = b""
        self.last_read_skipped = 0

    def _refresh(self) -> None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._reset_cache()
            return
        if _stat_key(st) == self._key:
            return
        with open(self.path, "rb") as handle:
            st = os.fstat(handle.fileno())
            if not self._prefix_intact(handle, st):
                self._reset_cache()
            handle.seek(self._offset)
            data = handle.read(st.st_size - self._offset)
        self._absorb(parse_chunk(data), data, st)

    def _prefix_intact(self, handle: Any, st: os.stat_result) -> bool:
        if self._ino != st.st_ino or st.st_size < self._offset:
            return False
        if not self._sample:
            return self._offset == 0
        handle.seek(self._offset - len(self._sample))
        return bool(handle.read(len(self._sample)) == self._sample)

    def _absorb(self, chunk: ParsedChunk, data: bytes, st: os.stat_result) -> None:
        start = self._offset
        self.lines_parsed += chunk.lines_parsed
        self._entries.extend(chunk.entries)
        self._messages += sum(1 for entry in chunk.entries if "role" in entry)
        for entry in chunk.entries:
            self._turns.feed(entry)
        self._ids.update(entry["id"] for entry in chunk.entries if isinstance(entry.get("id"), str))
        self._skipped += chunk.skipped
        self._sample = (self._sample + data[max(0, chunk.consumed - _SAMPLE) : chunk.consumed])[-_SAMPLE:]
        self._offset = start + chunk.consumed
        self._ino = st.st_ino
        self._key = _stat_key(st)
        if chunk.skipped:
            log.warning("%s: skipped %d malformed line(s) after byte %d", self.path, chunk.skipped, start)
        if chunk.torn_tail:
            log.warning(
                "%s: ignoring a torn last line (%d bytes at byte %d), probably an interrupted write",
                self.path,
                len(chunk.torn_tail),
                self._offset,
            )
        if chunk.nul_tail:
            log.warning("%s: ignoring NUL bytes at the end (after byte %d)", self.path, self._offset)
        self.last_read_skipped = self._skipped + (1 if chunk.torn_tail else 0)
