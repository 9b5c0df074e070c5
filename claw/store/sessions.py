"""The session index of one agent: `sessions.json` plus the transcripts beside it."""

from __future__ import annotations

import builtins
import dataclasses
import os
import threading
import uuid
from pathlib import Path
from typing import Any

from claw.errors import NotFoundError
from claw.paths import ensure_private_dir
from claw.store.atomic import fsync_dir
from claw.store.index_file import SessionIndexFile, Stamp, compact_utc
from claw.store.session_entry import SessionEntry, make_preview
from claw.store.transcript import Transcript, utc_now_iso

__all__ = ["INDEX_NAME", "SessionEntry", "SessionStore"]

INDEX_NAME = "sessions.json"


class SessionStore:
    """Sessions of one agent: the `sessions.json` index (key → `SessionEntry`) and transcripts.

    The index lives in memory and is rewritten with an atomic replace on every change; it
    is reloaded when the file changes behind us (another process, such as a CLI command).
    Session keys are case-insensitive (stored lowercased). Transcripts are never deleted:
    `reset` and `delete` move them to `archive/`. Methods are thread-safe.
    """

    def __init__(self, sessions_dir: Path) -> None:
        self.sessions_dir = Path(sessions_dir)
        self.index_path = self.sessions_dir / INDEX_NAME
        self.archive_dir = self.sessions_dir / "archive"
        self._lock = threading.RLock()
        self._entries: dict[str, SessionEntry] = {}
        self._unparsed: dict[str, Any] = {}  # index values we could not read, written back untouched
        self._stamp: Stamp | None = None
        self._dirty = False
        self._gen = 0  # bumped on every change to the in-memory index
        self._written_gen = 0  # the change the file on disk reflects
        self._write_lock = threading.Lock()  # one writer at a time; taken after `_lock`, never before it
        self._transcripts: dict[str, Transcript] = {}
        self._index = SessionIndexFile(self.index_path)
        with self._lock:
            self._load()

    # -- queries ----------------------------------------------------------------

    def get(self, key: str) -> SessionEntry | None:
        """The entry for `key`, or None."""
        with self._lock:
            self._refresh()
            return self._entries.get(key.lower())

    def list(self) -> builtins.list[SessionEntry]:  # `builtins.`: the method shadows `list` in here
        """Every session, most recently updated first."""
        with self._lock:
            self._refresh()
            entries = self._entries.values()
            return sorted(entries, key=lambda e: (e.updated_at, e.created_at), reverse=True)

    def transcript_path(self, session_id: str) -> Path:
        return self.sessions_dir / f"{session_id}.jsonl"

    def transcript(self, entry_or_key: SessionEntry | str) -> Transcript:
        """The transcript of a session; one shared object per session id, so its read cache is reused."""
        with self._lock:
            entry = entry_or_key if isinstance(entry_or_key, SessionEntry) else self._require(entry_or_key)
            found = self._transcripts.get(entry.session_id)
            if found is None:
                found = Transcript(self.transcript_path(entry.session_id))
                self._transcripts[entry.session_id] = found
            return found

    # -- changes ----------------------------------------------------------------

    def get_or_create(
        self, key: str, *, chat_type: str = "direct", channel: str = "cli", display_name: str | None = None
    ) -> SessionEntry:
        """The entry for `key`, created (with a new session id) if there is none."""
        with self._lock:
            self._refresh()
            key = key.lower()
            entry = self._entries.get(key)
            if entry is None:
                entry = self._new_entry(key, chat_type=chat_type, channel=channel, display_name=display_name)
                self._entries[key] = entry
                self._save()
            return entry

    def update(self, key: str, *, save: bool = True, **changes: Any) -> SessionEntry:
        """Replace fields of an existing entry (`updated_at` is set to now unless given).

        With `save=False` only the in-memory index changes (readers in this process see it at once);
        the file is written by the next `flush()` or saving change."""
        if "session_key" in changes:
            raise ValueError("a session's key cannot be changed")
        if "last_preview" in changes:
            changes["last_preview"] = make_preview(changes["last_preview"])
        with self._lock:
            entry = self._require(key)
            entry = dataclasses.replace(entry, **{"updated_at": utc_now_iso(), **changes})
            self._entries[entry.session_key] = entry
            if save:
                self._save()
            else:
                self._gen += 1
                self._dirty = True
            return entry

    def merge_extra(self, key: str, values: dict[str, Any]) -> SessionEntry:
        """Set keys of an existing entry's `extra` (others kept), read and written under one lock."""
        with self._lock:
            entry = self._require(key)
            # Bookkeeping, not activity: the session keeps its `updated_at`.
            return self.update(key, extra={**entry.extra, **values}, updated_at=entry.updated_at)

    def record_turn(
        self, key: str, *, preview: str, input_tokens: int = 0, output_tokens: int = 0, save: bool = True
    ) -> SessionEntry:
        """Bump counters after a turn's lines were appended; the message count comes from the transcript.
        (The counters can be recomputed from the transcript, so a caller on a hot path may defer the write.)"""
        with self._lock:
            entry = self._require(key)
            return self.update(
                key,
                save=save,
                message_count=self.transcript(entry).message_count(),
                input_tokens=entry.input_tokens + input_tokens,
                output_tokens=entry.output_tokens + output_tokens,
                last_preview=preview,
            )

    def reset(self, key: str) -> SessionEntry:
        """Give `key` a new session id: counters zeroed, model override kept, transcript archived."""
        with self._lock:
            self._refresh()
            key = key.lower()
            old = self._entries.get(key)
            if old is None:
                return self.get_or_create(key)
            new = self._new_entry(key, chat_type=old.chat_type, channel=old.channel, display_name=old.display_name)
            self._entries[key] = dataclasses.replace(new, model_override=old.model_override)
            # Index first: a crash before the move leaves an orphaned file, never a lost one.
            self._save()
            self._archive(old.session_id)
            return self._entries[key]

    def delete(self, key: str) -> bool:
        """Drop `key` from the index and archive its transcript; False if there was no such session."""
        with self._lock:
            self._refresh()
            key = key.lower()
            entry = self._entries.pop(key, None)
            if entry is None and self._unparsed.pop(key, None) is None:
                return False
            self._save()
            if entry is not None:
                self._archive(entry.session_id)
            return True

    def flush(self) -> None:
        """Write the index if it has unsaved changes (a deferred write, or one that failed).

        The write and its fsyncs happen outside the store's lock, so readers (the gateway's event loop
        looking up the next turn's session) never wait for the disk; an older snapshot never lands
        after a newer one."""
        with self._lock:
            if not self._dirty:
                return
            gen, entries, unparsed = self._gen, dict(self._entries), dict(self._unparsed)
        self._write(gen, entries, unparsed)
        with self._lock:
            if self._written_gen >= self._gen:
                self._dirty = False

    def close(self) -> None:
        """Flush and close every transcript this store opened."""
        with self._lock:
            self.flush()
            for transcript in self._transcripts.values():
                transcript.close()
            self._transcripts.clear()

    # -- internals --------------------------------------------------------------

    def _require(self, key: str) -> SessionEntry:
        with self._lock:
            self._refresh()
            entry = self._entries.get(key.lower())
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

    def _refresh(self) -> None:
        if not self._dirty and self._index.stamp() != self._stamp:
            self._load()

    def _load(self) -> None:
        loaded = self._index.load()
        self._entries, self._unparsed, self._stamp = loaded.entries, loaded.unparsed, loaded.stamp

    def _save(self) -> None:
        """Write the index now (called with `_lock` held)."""
        self._gen += 1
        self._dirty = True  # stays set if the write fails, so `flush` retries
        self._write(self._gen, self._entries, self._unparsed)
        self._dirty = False

    def _write(self, gen: int, entries: dict[str, SessionEntry], unparsed: dict[str, Any]) -> None:
        with self._write_lock:
            if gen <= self._written_gen:
                return  # a newer snapshot is already on disk
            self._stamp = self._index.save(entries, unparsed)
            self._written_gen = gen

    def _archive(self, session_id: str) -> Path | None:
        transcript = self._transcripts.pop(session_id, None)
        if transcript is not None:
            transcript.close()
        source = self.transcript_path(session_id)
        if not source.exists():
            return None
        ensure_private_dir(self.archive_dir)
        target = self.archive_dir / source.name
        if target.exists():
            target = self.archive_dir / f"{session_id}.{compact_utc()}.jsonl"
        os.rename(source, target)
        fsync_dir(self.sessions_dir)
        return target
