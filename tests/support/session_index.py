"""The session index on disk, as tests inspect it: `sessions.sqlite` read by a store of its own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claw.store.sessions import SessionStore


def read_index(sessions_dir: Path) -> dict[str, dict[str, Any]]:
    """Every session on disk as `sessionKey → entry` in the camelCase form `sessions.json` had."""
    store = SessionStore(sessions_dir)
    try:
        return {entry.session_key: entry.to_json() for entry in store.list()}
    finally:
        store.close()
