"""Scores: the raw FTS5 bm25 behind the keyword part, and the hybrid rule that never loses a keyword hit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from claw.memory.search import BM25_WEIGHTS, fts_query
from tests.memory.conftest import MakeManager
from tests.memory.corpus import QUERIES
from tests.memory.first_contact import blind_to_digits, write_memory
from tests.support.fixtures import ClawEnv

TICKET = "4471"


def _sqlite_bm25(db_path: Path, query: str) -> dict[tuple[str, int], float]:
    """bm25() per (path, start line) straight from SQLite, to check the value search reports."""
    db = sqlite3.connect(db_path)
    try:
        rows = db.execute(
            "SELECT c.path, c.start_line, bm25(chunks_fts, ?, ?) FROM chunks_fts JOIN chunks c "
            "ON c.id = chunks_fts.rowid WHERE chunks_fts MATCH ?",
            (*BM25_WEIGHTS, fts_query(query)),
        ).fetchall()
    finally:
        db.close()
    return {(path, start): value for path, start, value in rows}


async def test_the_raw_bm25_is_what_sqlite_computes_and_the_keyword_part_is_scaled_to_the_best(
    make_manager: MakeManager,
) -> None:
    manager = make_manager()
    outcome = await manager.search("main", manager.params("Kyoto rail pass ledger", min_score=0))
    assert len(outcome.hits) >= 2
    raw = _sqlite_bm25(manager.index("main").db_path, "Kyoto rail pass ledger")
    best = min(raw.values())
    for hit in outcome.hits:
        assert hit.bm25 == raw[(hit.path, hit.start_line)] and hit.bm25 < 0  # FTS5: negative, lower is better
        assert hit.best_bm25 == best
        assert hit.text_score == pytest.approx(hit.bm25 / best) and hit.score == hit.text_score
    assert outcome.hits[0].text_score == 1.0
    explained = outcome.hits[0].to_json(explain=True)
    assert explained["bm25"] == float(f"{outcome.hits[0].bm25:.6g}") != 0


async def test_a_tiny_bm25_is_shown_not_rounded_to_zero(make_manager: MakeManager) -> None:
    # FTS5 floors the IDF of a word in more than half the chunks at 1e-6 ("2025": every daily note's
    # heading), so its real bm25 values are about -1e-6, which rounding to four places showed as 0.
    manager = make_manager()
    hit = (await manager.search("main", manager.params("2025", min_score=0))).hits[0]
    assert -1e-4 < hit.bm25 < 0
    assert hit.to_json(explain=True)["bm25"] == float(f"{hit.bm25:.6g}") < 0


async def test_hybrid_keeps_a_keyword_hit_the_vectors_know_nothing_about(
    make_manager: MakeManager, claw_env: ClawEnv, corpus: Path
) -> None:
    write_memory(corpus)
    claw_env.server.embed_text = blind_to_digits
    keyword = make_manager()
    found = (await keyword.search("main", keyword.params(TICKET))).hits
    assert [(h.path, h.start_line, h.end_line) for h in found] == [("MEMORY.md", 25, 28)]

    hybrid = make_manager(embeddings=True)  # default weights 0.7/0.3 and minScore 0.35
    outcome = await hybrid.search("main", hybrid.params(TICKET))
    assert outcome.mode == "hybrid"
    (hit,) = outcome.hits
    assert (hit.path, hit.start_line, hit.end_line) == ("MEMORY.md", 25, 28)
    assert hit.vector_score is not None and abs(hit.vector_score) < 0.05  # the vector side has nothing
    assert hit.weighted_score is not None and hit.weighted_score < 0.35  # what used to drop it
    assert hit.score == hit.text_score == 1.0


async def test_turning_embeddings_on_never_loses_or_lowers_a_keyword_hit(
    make_manager: MakeManager, claw_env: ClawEnv, corpus: Path
) -> None:
    write_memory(corpus)
    claw_env.server.embed_text = blind_to_digits
    keyword, hybrid = make_manager(), make_manager(embeddings=True)
    queries = [q for q, _ in QUERIES] + [TICKET, "Dvorak", "ticket 4471 router", "B2 2025-01", "Lisbon 14 March"]
    for query in queries:
        plain = await keyword.search("main", keyword.params(query, max_results=100))
        mixed = await hybrid.search("main", hybrid.params(query, max_results=100))
        scores = {(h.path, h.start_line): h.score for h in mixed.hits}
        for hit in plain.hits:
            assert (hit.path, hit.start_line) in scores, (query, hit.path, hit.start_line)
            assert scores[(hit.path, hit.start_line)] >= hit.score


async def test_vector_only_by_choice_has_no_keyword_floor(
    make_manager: MakeManager, claw_env: ClawEnv, corpus: Path
) -> None:
    write_memory(corpus)
    claw_env.server.embed_text = blind_to_digits
    manager = make_manager(embeddings=True, textWeight=0)
    outcome = await manager.search("main", manager.params(TICKET))
    assert outcome.weights == {"vector": 1.0, "text": 0.0} and outcome.hits == []
