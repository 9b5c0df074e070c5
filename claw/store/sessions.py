"""The session index of one agent: `sessions.sqlite` (`claw.store.session_table`) plus the transcripts beside it."""

from __future__ import annotations

import builtins
import dataclasses
import logging
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claw.errors import NotFoundError
from claw.paths import ensure_private_dir
from claw.store.atomic import fsync_dir
from claw.store.file_lock import lock_path
from claw.store.index_file import compact_utc
from claw.store.session_entry import SessionEntry, make_preview
from claw.store.session_table import DB_NAME, Change, SessionTable, Slots
from claw.store.transcript import Entry, Transcript, utc_now_iso
from claw.store.turn_repair import close_interrupted_turn

if TYPE_CHECKING:
    from claw.store.search_index import SearchIndex

__all__ = ["INDEX_NAME", "SessionEntry", "SessionStore"]

log = logging.getLogger(__name__)

INDEX_NAME = DB_NAME


class SessionStore:
    """Sessions of one agent: the index (key → `SessionEntry`, in `sessions.sqlite`) and transcripts.

    Several stores may share one index: other processes (a CLI command, a second in-process gateway)
    and other objects in this one. So a store keeps no copy of the index: readers read the rows they
    need (`claw.store.session_table`), and every change is kept as a `Change` to one key until it is on
    disk, applied in a `BEGIN IMMEDIATE` transaction to the row as it is then. Changes are written at
    once, or with `save=False` by the next `flush()` (the turn path defers its counter update that
    way); a write that fails keeps its changes pending, for `flush` to retry. Readers see the rows
    plus this store's pending changes, and never wait for a write (they have their own connection).

    Changes are operations (set these fields, add these tokens) rather than whole entries, so two
    stores changing the same session keep both changes. A turn touches only its own session's row,
    so what it costs does not depend on how many sessions the agent has.

    Session keys are case-insensitive (stored lowercased). Transcripts are never deleted: `reset` and
    `delete` move them to `archive/`. Methods are thread-safe.

    The transcript is the record, the index a summary of it: before a session's transcript is first
    used through this store, a turn that a dead process left open in it is closed
    (`claw.store.turn_repair`) and the entry's `message_count` is recounted from the transcript when the
    two disagree (a process killed mid-turn never recorded its turn); `close_interrupted_turn` does the
    same on demand (the runner, before each turn).
    """

    def __init__(self, sessions_dir: Path) -> None:
        self.sessions_dir = Path(sessions_dir)
        self.index_path = self.sessions_dir / INDEX_NAME
        self.archive_dir = self.sessions_dir / "archive"
        # Lock order: `_write_lock` (one writer in this process, held across the disk I/O) before `_lock`
        # (the in-memory state, held briefly); nothing waits for `_write_lock` while holding `_lock`.
        self._lock = threading.RLock()
        self._write_lock = threading.Lock()
        ensure_private_dir(self.sessions_dir)
        self._table = SessionTable(self.sessions_dir)
        self._pending: builtins.list[tuple[str, Change]] = []  # changes not yet on disk, oldest first
        # While a write commits, the rows it is writing (and the ids of its changes): the database may or
        # may not hold them yet, so readers take these rather than apply those changes a second time.
        self._inflight: Slots | None = None
        self._inflight_ids: set[int] = set()
        self._transcripts: dict[str, Transcript] = {}
        self._turned: set[str] = set()  # keys whose turns the search index has not taken in yet
        self._search: SearchIndex | None = None

    # -- queries ----------------------------------------------------------------

    def get(self, key: str) -> SessionEntry | None:
        """The entry for `key`, or None."""
        return self._view([key.lower()]).entries.get(key.lower())

    def list(self) -> builtins.list[SessionEntry]:  # `builtins.`: the method shadows `list` in here
        """Every session, most recently updated first."""
        entries = self._view(None).entries.values()
        return sorted(entries, key=lambda e: (e.updated_at, e.created_at), reverse=True)

    def iter_entries(self, *, shared: bool = True) -> Iterator[SessionEntry]:
        """Every session, most recently updated first, read a page at a time (for listings of many
        sessions; this store's own unsaved changes are written first, so the rows include them).
        `shared=False`: without what many entries share (the skills snapshot), for a listing."""
        self.flush()
        return self._table.rows(shared=shared)

    def transcript_path(self, session_id: str) -> Path:
        return self.sessions_dir / f"{session_id}.jsonl"

    def transcript(self, entry_or_key: SessionEntry | str) -> Transcript:
        """The transcript of a session; one shared object per session id, so its read cache is reused.
        Its first read or append settles it first (see the class docstring), in the caller's thread."""
        with self._lock:
            entry = entry_or_key if isinstance(entry_or_key, SessionEntry) else self._require(entry_or_key)
            found = self._transcripts.get(entry.session_id)
            if found is None:
                key, session_id = entry.session_key, entry.session_id
                transcript = Transcript(
                    self.transcript_path(session_id),
                    on_first_use=lambda: self._settle_quietly(key, session_id, transcript),
                )
                self._transcripts[session_id] = found = transcript
            return found

    def close_interrupted_turn(self, key: str) -> Entry | None:
        """Close the session's last turn if a process that died left it open, and recount the index's
        message count from the transcript if they disagree; the closing entry appended, or None.
        Does disk I/O (and, when something changed, an index write): call it off the event loop."""
        entry = self._require(key)
        transcript = self.transcript(entry)
        transcript.skip_first_use()  # this is the first use's work
        return self._settle(entry.session_key, entry.session_id, transcript)

    # -- changes ----------------------------------------------------------------

    def get_or_create(
        self, key: str, *, chat_type: str = "direct", channel: str = "cli", display_name: str | None = None
    ) -> SessionEntry:
        """The entry for `key`, created (with a new session id) if there is none.

        Created under the index lock against the file as it is then, so two stores creating the
        same key at once end up with one session, not two ids for one key."""
        key = key.lower()
        entry = self.get(key)
        if entry is not None:
            return entry
        new = self._new_entry(key, chat_type=chat_type, channel=channel, display_name=display_name)
        self._change(key, lambda index: index.entries.setdefault(key, new))
        return self._require(key)

    def update(self, key: str, *, save: bool = True, **changes: Any) -> SessionEntry:
        """Replace fields of an existing entry (`updated_at` is set to now unless given).

        With `save=False` only the in-memory index changes (readers in this process see it at once);
        the file is written by the next `flush()` or saving change."""
        if "session_key" in changes:
            raise ValueError("a session's key cannot be changed")
        if "last_preview" in changes:
            changes["last_preview"] = make_preview(changes["last_preview"])
        changes = {"updated_at": utc_now_iso(), **changes}
        return self._change_entry(key, lambda entry: dataclasses.replace(entry, **changes), save=save)

    def merge_extra(self, key: str, values: dict[str, Any]) -> SessionEntry:
        """Set keys of an existing entry's `extra` (others, including other stores' keys, kept)."""
        # Bookkeeping, not activity: the session keeps its `updated_at`.
        return self._change_entry(key, lambda entry: dataclasses.replace(entry, extra={**entry.extra, **values}))

    def record_turn(
        self, key: str, *, preview: str, input_tokens: int = 0, output_tokens: int = 0, save: bool = True
    ) -> SessionEntry:
        """Bump counters after a turn's lines were appended; the message count comes from the transcript.
        (The counters can be recomputed from the transcript, so a caller on a hot path may defer the write.)"""
        message_count = self.transcript(key).message_count()
        preview, now = make_preview(preview), utc_now_iso()

        def turn(entry: SessionEntry) -> SessionEntry:
            return dataclasses.replace(
                entry,
                updated_at=now,
                message_count=message_count,
                input_tokens=entry.input_tokens + input_tokens,  # added, so two writers' turns both count
                output_tokens=entry.output_tokens + output_tokens,
                last_preview=preview,
            )

        with self._lock:
            self._turned.add(key.lower())
        return self._change_entry(key, turn, save=save)

    def search_index(self) -> SearchIndex:
        """The full-text index of these sessions (`claw.store.search_index`), opened on first use."""
        from claw.store.search_index import INDEX_NAME as SEARCH_INDEX_NAME
        from claw.store.search_index import SearchIndex

        with self._lock:
            if self._search is None:
                self._search = SearchIndex(self.sessions_dir / SEARCH_INDEX_NAME)
            return self._search

    def reset(self, key: str) -> SessionEntry:
        """Give `key` a new session id: counters zeroed, model override kept, transcript archived."""
        key = key.lower()
        old = self.get(key)
        new = self._new_entry(
            key,
            chat_type=old.chat_type if old else "direct",
            channel=old.channel if old else "cli",
            display_name=old.display_name if old else None,
        )

        def replace(index: Slots) -> SessionEntry | None:
            replaced = index.entries.get(key)
            override = replaced.model_override if replaced else None
            index.entries[key] = dataclasses.replace(new, model_override=override)
            return replaced

        # Index first: a crash before the move leaves an orphaned file, never a lost one.
        replaced = self._change(key, replace)
        if replaced is not None:
            self._archive(replaced.session_id)
        return self._require(key)

    def delete(self, key: str) -> bool:
        """Drop `key` from the index and archive its transcript; False if there was no such session."""
        key = key.lower()
        view = self._view([key])
        if key not in view.entries and key not in view.unparsed:
            return False

        def drop(index: Slots) -> tuple[bool, SessionEntry | None]:
            unparsed = index.unparsed.pop(key, None)
            entry = index.entries.pop(key, None)
            return (entry is not None or unparsed is not None), entry

        found, entry = self._change(key, drop)
        if entry is not None:
            self._archive(entry.session_id)
        return bool(found)

    def flush(self) -> None:
        """Write the index if it has unsaved changes (a deferred write, or one that failed), then take the
        turns recorded since into the search index (`claw.store.search_sync`; the gateway flushes after a
        reply's terminal event, so that is off the reply's path).

        The write and its fsyncs happen outside the store's lock, so readers (the gateway's event loop
        looking up the next turn's session) never wait for the disk."""
        with self._lock:
            pending = bool(self._pending)
        if pending:
            self._write()
        self._index_turns()

    def close(self) -> None:
        """Flush and close every transcript this store opened."""
        self.flush()
        with self._lock:
            for transcript in self._transcripts.values():
                transcript.close()
            self._transcripts.clear()
            if self._search is not None:
                self._search.close()
                self._search = None

    # -- internals --------------------------------------------------------------

    def _index_turns(self) -> None:
        """Take the turns recorded since the last flush into the search index; a failure only logs (the
        index is derived: the next search catches up)."""
        with self._lock:
            keys, self._turned = self._turned, set()
        if not keys:
            return
        from claw.store.search_sync import index_sessions  # the search modules load on first use, as in search_index()

        try:
            index_sessions(self, self.search_index(), sorted(keys))
        except Exception:
            log.exception("could not update the search index of %s", self.sessions_dir)

    def _settle(self, key: str, session_id: str, transcript: Transcript) -> Entry | None:
        """Close an interrupted turn in `transcript` (session `session_id` of `key`), then recount."""
        closed = close_interrupted_turn(transcript)
        count = transcript.message_count()
        entry = self.get(key)
        if entry is None or entry.session_id != session_id or entry.message_count == count:
            return closed
        log.info("session %s: %d messages in the index, %d in the transcript", key, entry.message_count, count)

        def recount(index: Slots) -> None:
            current = index.entries.get(key)
            if current is not None and current.session_id == session_id:  # not after a reset elsewhere
                # Bookkeeping, not activity: `updated_at` stays.
                index.entries[key] = dataclasses.replace(current, message_count=count)

        self._change(key, recount)
        return closed

    def _settle_quietly(self, key: str, session_id: str, transcript: Transcript) -> None:
        """`_settle` on a transcript's first use: a reader must still get its entries when the repair or
        the index write fails (a read-only disk, say)."""
        try:
            self._settle(key, session_id, transcript)
        except Exception:
            log.exception("could not settle the transcript of session %s", key)

    def _require(self, key: str) -> SessionEntry:
        entry = self.get(key)
        if entry is None:
            raise NotFoundError(f"no session {key.lower()!r} in {self.sessions_dir}")
        return entry

    def _new_entry(self, key: str, *, chat_type: str, channel: str, display_name: str | None) -> SessionEntry:
        now = utc_now_iso()
        return SessionEntry(
            session_key=key,
            session_id=uuid.uuid4().hex,
            created_at=now,
            updated_at=now,
            chat_type=chat_type,
            channel=channel,
            display_name=display_name,
        )

    def _change_entry(
        self, key: str, edit: Callable[[SessionEntry], SessionEntry], *, save: bool = True
    ) -> SessionEntry:
        """Apply `edit` to the session `key` now is; it applies on disk only while the key still has that
        session id (a session reset or removed by another store meanwhile is left alone)."""
        key = key.lower()
        session_id = self._require(key).session_id

        def change(index: Slots) -> None:
            entry = index.entries.get(key)
            if entry is None or entry.session_id != session_id:
                log.info("session %s was reset or removed elsewhere; a change to its old id is dropped", key)
                return
            index.entries[key] = edit(entry)

        self._change(key, change, save=save)
        return self._require(key)

    def _change(self, key: str, change: Change, *, save: bool = True) -> Any:
        """Queue `change` to `key` (readers see it at once) and, with `save`, write it; what it returned on disk."""
        with self._lock:
            self._pending.append((key, change))
            result = change(self._view([key]))
        if save:
            results = self._write()
            result = results.get(id(change), result)
        return result

    def _write(self) -> dict[int, Any]:
        """Apply every pending change to the rows on disk in one transaction; their results by `id(change)`.

        On failure the changes stay pending (and visible), for the next write or `flush` to retry."""
        with self._write_lock:
            with self._lock:
                changes = builtins.list(self._pending)
            if not changes:
                return {}

            def ready(slots: Slots) -> None:
                with self._lock:
                    self._inflight, self._inflight_ids = slots, {id(change) for _, change in changes}

            try:
                ensure_private_dir(self.sessions_dir)
                results = self._table.write(changes, ready)
                with self._lock:
                    del self._pending[: len(changes)]  # changes queued meanwhile stay, after these
            finally:
                with self._lock:
                    self._inflight, self._inflight_ids = None, set()
            return {id(change): result for (_, change), result in zip(changes, results, strict=True)}

    def _view(self, keys: builtins.list[str] | None) -> Slots:
        """The rows of `keys` (None: all) as readers see them: on disk, with this store's pending changes."""
        # Read under `_lock`, so a write's commit and the end of its in-flight state look atomic to a reader
        # (the reader connection never waits for the writer: WAL).
        with self._lock:
            loaded = self._table.load_all() if keys is None else self._table.load(keys)
            inflight, skip = self._inflight, self._inflight_ids
            if inflight is not None:  # a write is committing: its rows are what the disk holds, or is about to
                for key in inflight.entries.keys() | inflight.unparsed.keys() | self._keys_of(skip):
                    if keys is not None and key not in keys:
                        continue
                    loaded.entries.pop(key, None)
                    loaded.unparsed.pop(key, None)
                    if key in inflight.entries:
                        loaded.entries[key] = inflight.entries[key]
                    if key in inflight.unparsed:
                        loaded.unparsed[key] = inflight.unparsed[key]
            for key, change in self._pending:
                if id(change) not in skip and (keys is None or key in keys):
                    change(loaded)
        return loaded

    def _keys_of(self, ids: set[int]) -> set[str]:
        return {key for key, change in self._pending if id(change) in ids}

    def _archive(self, session_id: str) -> Path | None:
        with self._lock:
            transcript = self._transcripts.pop(session_id, None)
        if transcript is not None:
            transcript.close()
        source = self.transcript_path(session_id)
        lock_path(source).unlink(missing_ok=True)  # the turn lock of a session that is no longer used
        if not source.exists():
            return None
        ensure_private_dir(self.archive_dir)
        target = self.archive_dir / source.name
        if target.exists():
            target = self.archive_dir / f"{session_id}.{compact_utc()}.jsonl"
        os.rename(source, target)
        fsync_dir(self.sessions_dir)
        return target
