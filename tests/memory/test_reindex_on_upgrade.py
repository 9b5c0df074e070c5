"""An index written by an older chunker is rebuilt on the first sync, not searched as it was."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from claw.memory import chunker
from claw.memory.schema import MIGRATIONS
from tests.memory.conftest import MakeManager
from tests.memory.first_contact import LINES, SECTIONS, write_memory, write_v1_index


def _chunk_ranges(db_path: Path, rel: str) -> list[tuple[int, int]]:
    db = sqlite3.connect(db_path)
    try:
        query = "SELECT start_line, end_line FROM chunks WHERE path = ? ORDER BY start_line"
        return db.execute(query, (rel,)).fetchall()
    finally:
        db.close()


async def test_an_index_from_before_chunking_by_heading_is_migrated_and_rebuilt(
    make_manager: MakeManager, corpus: Path
) -> None:
    write_memory(corpus)
    manager = make_manager()
    db_path = manager.index("main").db_path
    write_v1_index(db_path, corpus)
    assert _chunk_ranges(db_path, "MEMORY.md") == [(1, LINES)]

    report = await manager.sync("main")
    assert report.rebuilt and "MEMORY.md" in report.changed
    assert _chunk_ranges(db_path, "MEMORY.md") == list(SECTIONS.values())
    db = sqlite3.connect(db_path)
    versions = [row[0] for row in db.execute("SELECT version FROM schema_migrations ORDER BY version")]
    chunking = json.loads(db.execute("SELECT value FROM meta WHERE key = 'chunking'").fetchone()[0])
    db.close()
    assert versions == list(range(1, len(MIGRATIONS) + 1))
    assert chunking["chunker"] == chunker.CHUNKER_VERSION
    hit = (await manager.search("main", manager.params("Dvorak"))).hits[0]
    assert (hit.path, hit.start_line, hit.end_line) == ("MEMORY.md", 20, 23)


async def test_a_new_chunker_version_rebuilds_an_index_of_the_current_schema(
    make_manager: MakeManager, monkeypatch
) -> None:
    manager = make_manager()
    assert (await manager.sync("main")).rebuilt  # a new index: built from scratch
    assert not (await manager.sync("main", force=False)).rebuilt
    manager.close()
    monkeypatch.setattr(chunker, "CHUNKER_VERSION", chunker.CHUNKER_VERSION + 1)
    monkeypatch.setattr("claw.memory.index.CHUNKER_VERSION", chunker.CHUNKER_VERSION)
    upgraded = make_manager()
    report = await upgraded.sync("main")
    assert report.rebuilt and len(report.changed) == report.files
