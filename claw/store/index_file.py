"""`sessions.json` on disk: read tolerantly, written atomically, quarantined when corrupt."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from claw.paths import ensure_private_dir
from claw.store.atomic import atomic_write_json, remove_stale_temps
from claw.store.session_entry import SessionEntry

log = logging.getLogger(__name__)

Stamp = tuple[int, int, int]  # (inode, size, mtime_ns): changes whenever the file is replaced


def compact_utc() -> str:
    """Now as a file-name-safe UTC timestamp, e.g. `20250102T030405123456Z`."""
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


@dataclass(slots=True)
class LoadedIndex:
    """The index as read: parsed entries, values we could not parse (kept verbatim), file stamp."""

    entries: dict[str, SessionEntry] = field(default_factory=dict)
    unparsed: dict[str, Any] = field(default_factory=dict)
    stamp: Stamp | None = None


class SessionIndexFile:
    """The session index file: an object map `sessionKey → entry` in camelCase JSON.

    A file that is not a JSON object is never overwritten in place: it is renamed to
    `sessions.json.corrupt-<timestamp>` with a warning, and the index starts empty.
    A single entry that cannot be parsed is kept verbatim and written back unchanged.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        if self.path.parent.is_dir():
            remove_stale_temps(self.path)

    def stamp(self) -> Stamp | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns)

    def load(self) -> LoadedIndex:
        loaded = LoadedIndex()
        try:
            with open(self.path, "rb") as handle:
                st = os.fstat(handle.fileno())
                raw = handle.read()
        except FileNotFoundError:
            return loaded
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            self._quarantine(exc)
            return loaded
        for key, value in data.items():
            try:
                entry = SessionEntry.from_json(key, value)
            except ValueError as exc:
                log.warning("%s: cannot read session %r (%s); keeping it as is", self.path, key, exc)
                loaded.unparsed[key] = value
                continue
            loaded.entries[entry.session_key] = entry
        loaded.stamp = (st.st_ino, st.st_size, st.st_mtime_ns)
        return loaded

    def save(self, entries: dict[str, SessionEntry], unparsed: dict[str, Any]) -> Stamp | None:
        """Write the index atomically (0600, directory 0700); returns the new file's stamp."""
        payload: dict[str, Any] = {key: value for key, value in unparsed.items() if key not in entries}
        payload.update((key, entry.to_json()) for key, entry in sorted(entries.items()))
        ensure_private_dir(self.path.parent)
        atomic_write_json(self.path, payload)
        return self.stamp()

    def _quarantine(self, reason: Exception) -> None:
        target = self.path.with_name(f"{self.path.name}.corrupt-{compact_utc()}")
        try:
            os.rename(self.path, target)
        except FileNotFoundError:  # another process moved it first
            return
        log.warning(
            "%s is not a valid session index (%s); moved it to %s and started an empty index "
            "(transcripts *.jsonl are untouched)",
            self.path,
            reason,
            target,
        )
