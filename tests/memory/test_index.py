"""The index follows the files incrementally, is derived (rebuildable), and re-embeds only what changed."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from claw.paths import Paths
from tests.memory.conftest import MakeManager
from tests.memory.corpus import FILES, QUERIES
from tests.support.fixtures import ClawEnv


def _delete_index(db_path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)


def _embedded_inputs(env: ClawEnv) -> list[str]:
    return [text for r in env.server.requests if r.path == "/v1/embeddings" for text in r.body["input"]]


async def _ranking(manager, queries=QUERIES) -> list[list[tuple[str, int, int, float]]]:
    out = []
    for query, _ in queries:
        outcome = await manager.search("main", manager.params(query, min_score=0))
        out.append([(h.path, h.start_line, h.end_line, round(h.score, 6)) for h in outcome.hits])
    return out


async def test_first_sync_indexes_every_memory_file_but_not_the_readme(make_manager: MakeManager) -> None:
    manager = make_manager()
    report = await manager.sync("main")
    expected = sorted(rel for rel in FILES if rel != "memory/README.md")
    assert sorted(report.changed) == expected and report.files == len(expected)
    status = await manager.status("main")
    assert status["files"] == len(expected) and status["chunks"] >= len(expected)
    assert status["embeddings"]["enabled"] is False and status["mode"] == "keyword"
    assert status["lastIndexed"]
    assert Path(status["index"]) == Paths.from_env().memory_index("main")
    assert oct(os.stat(status["index"]).st_mode & 0o777) == "0o600"


async def test_template_comments_are_not_memories(make_manager: MakeManager) -> None:
    manager = make_manager()
    outcome = await manager.search("main", manager.params("Oslo brother", min_score=0))
    assert outcome.hits == []


async def test_an_edit_reindexes_only_that_file(make_manager: MakeManager, corpus: Path) -> None:
    manager = make_manager()
    await manager.sync("main")
    assert (await manager.sync("main")).changed == []  # nothing changed: nothing re-read

    note = corpus / "memory/2025-02-14.md"
    note.write_text(note.read_text() + "- Tried rye flour in the levain: denser crumb.\n", encoding="utf-8")
    (corpus / "memory/2025-02-20.md").unlink()
    (corpus / "memory/2025-03-20.md").write_text("# 2025-03-20\n- Started learning Portuguese.\n", encoding="utf-8")

    report = await manager.sync("main")
    assert sorted(report.changed) == ["memory/2025-02-14.md", "memory/2025-03-20.md"]
    assert report.removed == ["memory/2025-02-20.md"]
    hit = (await manager.search("main", manager.params("rye levain"))).hits[0]
    assert (hit.path, hit.start_line, hit.end_line) == ("memory/2025-02-14.md", 1, 3)
    assert (await manager.search("main", manager.params("Portuguese"))).hits[0].path == "memory/2025-03-20.md"
    assert (await manager.search("main", manager.params("Michelin tyres"))).hits == []


async def test_a_sync_with_nothing_changed_does_not_touch_the_database(
    make_manager: MakeManager, corpus: Path
) -> None:
    manager = make_manager()
    await manager.sync("main")
    index = manager.index("main")
    statements: list[str] = []
    index.conn.set_trace_callback(statements.append)
    assert (await manager.sync("main")).changed == []
    assert not any(s.startswith("BEGIN") for s in statements)  # recall's sync before every turn stays cheap

    note = corpus / "memory/2025-01-05.md"  # an edit in place (same name, same folder)
    note.write_text(note.read_text().replace("a", "o"), encoding="utf-8")
    assert (await manager.sync("main")).changed == ["memory/2025-01-05.md"]

    other = make_manager()  # another process, say `claw memory index --force`, rebuilds the index
    await other.sync("main", force=True)
    statements.clear()
    assert (await manager.sync("main")).changed == []
    assert any(s.startswith("BEGIN") for s in statements)  # its write was noticed: a real sync ran
    index.conn.set_trace_callback(None)


async def test_touching_a_file_without_changing_it_does_not_rechunk(make_manager: MakeManager, corpus: Path) -> None:
    manager = make_manager()
    await manager.sync("main")
    note = corpus / "memory/2025-01-05.md"
    os.utime(note, ns=(note.stat().st_atime_ns, note.stat().st_mtime_ns + 5_000_000_000))
    db = sqlite3.connect(manager.index("main").db_path)
    before = db.execute("SELECT id FROM chunks WHERE path = ?", ("memory/2025-01-05.md",)).fetchall()
    assert (await manager.sync("main")).changed == []
    after = db.execute("SELECT id FROM chunks WHERE path = ?", ("memory/2025-01-05.md",)).fetchall()
    assert before == after
    db.close()


async def test_the_index_is_derived_deleting_it_gives_the_same_results(
    make_manager: MakeManager, claw_env: ClawEnv
) -> None:
    for embeddings in (False, True):
        manager = make_manager(embeddings=embeddings)
        first = await _ranking(manager)
        db_path = manager.index("main").db_path
        manager.close()
        _delete_index(db_path)
        rebuilt = make_manager(embeddings=embeddings)
        assert await _ranking(rebuilt) == first
        rebuilt.close()


async def test_force_and_chunk_settings_rebuild_everything(make_manager: MakeManager) -> None:
    manager = make_manager()
    await manager.sync("main")
    forced = await manager.sync("main", force=True)
    assert forced.rebuilt and len(forced.changed) == forced.files
    manager.close()
    smaller = make_manager(chunkTokens=40, chunkOverlap=8)
    report = await smaller.sync("main")
    assert report.rebuilt and len(report.changed) == report.files


async def test_a_damaged_index_is_rebuilt_not_fatal(make_manager: MakeManager) -> None:
    manager = make_manager()
    db_path = manager.index("main").db_path
    db_path.parent.mkdir(parents=True, exist_ok=True)
    db_path.write_bytes(b"this is not a database" * 100)
    outcome = await manager.search("main", manager.params("sourdough"))
    assert outcome.hits[0].path == "memory/2025-02-14.md"


async def test_editing_one_chunk_re_embeds_only_that_chunk(
    make_manager: MakeManager, corpus: Path, claw_env: ClawEnv
) -> None:
    long_note = corpus / "memory/2025-03-30.md"
    paragraphs = [f"- Paragraph {n}: " + " ".join(f"word{n}x{i}" for i in range(60)) for n in range(8)]
    long_note.write_text("\n".join(paragraphs) + "\n", encoding="utf-8")
    manager = make_manager(embeddings=True, chunkTokens=200, chunkOverlap=0)
    await manager.sync("main")
    index = manager.index("main")
    chunks = index.conn.execute("SELECT count(*) FROM chunks WHERE path = 'memory/2025-03-30.md'").fetchone()[0]
    assert chunks >= 4
    assert index.status()["vectors"] == index.status()["chunks"]
    sent_before = len(_embedded_inputs(claw_env))

    paragraphs[-1] = "- Paragraph 7 was rewritten about marmalade."
    long_note.write_text("\n".join(paragraphs) + "\n", encoding="utf-8")
    report = await manager.sync("main")
    assert report.changed == ["memory/2025-03-30.md"]
    new_inputs = _embedded_inputs(claw_env)[sent_before:]
    assert len(new_inputs) == 1 and "marmalade" in new_inputs[0]
    assert index.status()["vectors"] == index.status()["chunks"]


async def test_recall_searches_on_the_loop_only_when_nothing_needs_indexing(
    make_manager: MakeManager, corpus: Path, monkeypatch
) -> None:
    from claw.memory import manager as manager_module

    threads: list[bool] = []
    real_search = manager_module.search

    def recording_search(index, params):
        threads.append(threading.current_thread() is threading.main_thread())
        return real_search(index, params)

    monkeypatch.setattr(manager_module, "search", recording_search)
    manager = make_manager()
    assert (await manager.search("main", manager.params("sourdough", min_score=0))).hits  # first: indexes
    assert (await manager.search("main", manager.params("sourdough", min_score=0))).hits  # in sync: on the loop
    note = corpus / "memory/2025-03-20.md"
    note.write_text("# 2025-03-20\n- Started learning Portuguese.\n", encoding="utf-8")
    hits = (await manager.search("main", manager.params("Portuguese"))).hits  # a new note: re-indexed first
    assert hits and hits[0].path == "memory/2025-03-20.md"
    assert threads == [False, True, False]

    monkeypatch.setattr(manager_module, "LOOP_SEARCH_MAX_FILES", 1)
    await manager.search("main", manager.params("sourdough"))  # many files: the check itself is work
    assert threads[-1] is False

    embedding = make_manager(embeddings=True)  # the query needs an embedding: the network, never the loop
    for _ in range(2):
        await embedding.search("main", embedding.params("sourdough"))
    assert threads[-2:] == [False, False]
