"""Keeping an agent's `SearchIndex` level with its transcripts: after each turn, before each search,
and from scratch (`rebuild`).

After a turn the session store hands over the keys whose turns it just wrote (`index_sessions`, called
from `SessionStore.flush`, which the gateway runs after the reply's terminal event: off the reply's
path). Before a search, `catch_up` takes in whatever that missed (turns written by a process that died,
or before the index existed): the ledger's message count against the session index's, both in memory,
so an up-to-date index costs no transcript read; the archive folder is listed again only when its
mtime moved. Archived transcripts do not change, so each is read once and then marked done.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from claw.store.search_index import SearchIndex
from claw.store.session_entry import SessionEntry
from claw.store.transcript import Transcript

log = logging.getLogger(__name__)


class SessionSource(Protocol):
    """What keeping an index level reads of an agent's sessions (`SessionStore` is one)."""

    archive_dir: Path

    def get(self, key: str) -> SessionEntry | None: ...

    def list(self) -> Sequence[SessionEntry]: ...

    def transcript(self, entry: SessionEntry) -> Transcript: ...


_ARCHIVE_STAMP = "archiveStamp"


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one catch-up or rebuild read."""

    sessions: int = 0
    archived: int = 0
    messages: int = 0


def index_sessions(store: SessionSource, index: SearchIndex, keys: Iterable[str]) -> int:
    """Take in the new messages of the sessions `keys` (their current transcripts); messages added."""
    added = 0
    for key in keys:
        entry = store.get(key)
        if entry is None:
            continue
        entries = store.transcript(entry).read()
        added += index.sync(entry.session_id, entry.session_key, entries)
    return added


def catch_up(store: SessionSource, index: SearchIndex) -> SyncReport:
    """Index whatever the index does not have yet: live sessions whose message count moved, and archived
    transcripts not yet taken in."""
    ledger = index.ledger()
    sessions = messages = 0
    for entry in store.list():
        row = ledger.get(entry.session_id)
        if row is not None and row.messages == entry.message_count and not row.archived:
            continue
        entries = store.transcript(entry).read()
        messages += index.sync(entry.session_id, entry.session_key, entries)
        sessions += 1
    archived, from_archive = _catch_up_archive(store, index)
    return SyncReport(sessions, archived, messages + from_archive)


def rebuild(store: SessionSource, index: SearchIndex) -> SyncReport:
    """Index every transcript again from nothing (keys of archived transcripts are kept)."""
    index.clear()
    return catch_up(store, index)


def _catch_up_archive(store: SessionSource, index: SearchIndex) -> tuple[int, int]:
    folder = store.archive_dir
    try:
        stamp = str(os.stat(folder).st_mtime_ns)
    except FileNotFoundError:
        return 0, 0
    if index.meta(_ARCHIVE_STAMP) == stamp:
        return 0, 0
    current = {entry.session_id for entry in store.list()}
    done = {session_id for session_id, row in index.ledger().items() if row.archived}
    files = messages = 0
    for path in sorted(folder.glob("*.jsonl")):
        session_id = path.name.split(".", 1)[0]  # `<id>.jsonl`, or `<id>.<stamp>.jsonl` for a second archive
        if session_id in done or session_id in current:
            continue
        try:
            with Transcript(path) as transcript:
                entries = transcript.read()
        except OSError as exc:
            log.warning("cannot index the archived transcript %s: %s", path, exc)
            continue
        messages += index.sync(session_id, None, entries, archived=True)
        files += 1
    index.set_meta(_ARCHIVE_STAMP, stamp)
    return files, messages
