"""What a new user's memory looks like: the template's MEMORY.md with a few facts under its headings,
and the index an older claw (one chunk per run of ~400 tokens, schema version 1) built over it."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from claw.memory.chunker import blank_comments, text_hash
from claw.memory.schema import MIGRATIONS
from tests.support.model_replies import embed

MEMORY_MD = """# MEMORY.md: long-term memory

Curated facts worth keeping for months. The daily logs in memory/ are the raw record;
this file is the distilled version. Keep entries short, dated when it matters, and
grouped under the headings below. Update or remove an entry when it stops being true.

Only for private sessions with your user: do not quote it in shared or group chats.
Never store passwords, API keys or tokens here.

## People

- Alex: Sam's sister, lives in Lisbon, birthday 14 March.
- Priya: friend from the climbing gym.

## Projects

- home-server: Debian on the NAS; backups nightly to B2 (2025-01).
- ledger: decided on Postgres over MySQL.

## Preferences and decisions

- Prefers pull requests small; tea over coffee.
- Uses the Dvorak keyboard layout.

## Open threads

- Waiting on the landlord about the heating (asked 2025-02-03).
- Support ticket 4471 with the ISP: the router drops the VPN at night.
"""

TITLE = "MEMORY.md: long-term memory"
SECTIONS = {  # heading → (first line, last line) of its section, as a hit should cite it
    TITLE: (1, 8),
    f"{TITLE} › People": (10, 13),
    f"{TITLE} › Projects": (15, 18),
    f"{TITLE} › Preferences and decisions": (20, 23),
    f"{TITLE} › Open threads": (25, 28),
}
LINES = len(MEMORY_MD.splitlines())


def write_memory(workspace: Path) -> Path:
    workspace.mkdir(parents=True, exist_ok=True)
    path = workspace / "MEMORY.md"
    path.write_text(MEMORY_MD, encoding="utf-8")
    return path


def blind_to_digits(text: str, dimensions: int) -> list[float]:
    """An embedding model that does not see numbers (ticket ids, dates): the server's vectors of the
    text with every digit gone, so a query that is only a number has no similarity to anything."""
    return embed(re.sub(r"\d", " ", text), dimensions)


def write_v1_index(db_path: Path, workspace: Path) -> None:
    """The index exactly as claw wrote it before chunking by heading: schema version 1, chunking settings
    without a chunker version, and MEMORY.md as one chunk of all its lines, stamped as up to date."""
    path = workspace / "MEMORY.md"
    text = path.read_text(encoding="utf-8")
    lines = blank_comments(text).splitlines()
    chunk = "\n".join(lines)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(db_path)
    try:
        db.executescript(MIGRATIONS[0])
        now = datetime.now(UTC).isoformat(timespec="seconds")
        db.executescript("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT);")
        db.execute("INSERT INTO schema_migrations VALUES (1, ?)", (now,))
        db.execute("INSERT INTO meta VALUES ('chunking', ?)", (json.dumps({"tokens": 400, "overlap": 80}),))
        db.execute("INSERT INTO meta VALUES ('indexedAt', ?)", (now,))
        st = path.stat()
        db.execute(
            "INSERT INTO files VALUES ('MEMORY.md', ?, ?, ?, 1, ?)", (text_hash(text), st.st_mtime_ns, st.st_size, now)
        )
        db.execute(
            "INSERT INTO chunks (path, start_line, end_line, hash, text) VALUES ('MEMORY.md', 1, ?, ?, ?)",
            (len(lines), text_hash(chunk), chunk),
        )
        db.commit()
    finally:
        db.close()
