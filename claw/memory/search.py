"""Hybrid search over a `MemoryIndex`: BM25 (FTS5) and, when embeddings are on, cosine similarity.

Each side contributes `maxResults × candidateMultiplier` candidates. The BM25 part is scaled
to 0..1 against the best keyword hit of the query; the vector part is the cosine similarity,
computed exactly for every candidate. The final score is the weighted mean
`(vw·vector + tw·text) / (vw + tw)`; keyword-only search (no embeddings configured, or the
endpoint failing) scores by the text part alone and says so in `SearchOutcome.note`.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from claw.memory.embeddings import EmbeddingError
from claw.memory.index import MemoryIndex

SNIPPET_CHARS = 700
_WORD = re.compile(r"\w+", re.UNICODE)
# Words that match almost every note: left out of the keyword query unless nothing else is left.
_STOPWORDS_TEXT = """
a an and are as at be been but by can could did do does for from had has have how i in is it its me my of on or
our so that the their them then there these this those to was we were what when where which who why will with
would you your about any all just
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())


@dataclass(frozen=True, slots=True)
class SearchParams:
    query: str
    max_results: int = 6
    min_score: float = 0.35
    vector_weight: float = 0.7
    text_weight: float = 0.3
    candidate_multiplier: int = 4


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One chunk that matched: where it is, how well it scored and why."""

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    text_score: float
    vector_score: float | None
    bm25: float | None

    def to_json(self, *, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "score": round(self.score, 4),
            "snippet": self.snippet,
            "citation": f"{self.path}#L{self.start_line}-L{self.end_line}",
        }
        if explain:
            out["textScore"] = round(self.text_score, 4)
            out["bm25"] = None if self.bm25 is None else round(self.bm25, 4)
            out["vectorScore"] = None if self.vector_score is None else round(self.vector_score, 4)
        return out


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    hits: list[SearchHit]
    mode: str  # "hybrid" | "keyword"
    model: str | None = None
    note: str | None = None
    weights: dict[str, float] = field(default_factory=dict)


def fts_query(text: str) -> str | None:
    """An FTS5 OR-query of the distinct words of `text` (stopwords dropped if any other word is left)."""
    words = list(dict.fromkeys(w.lower() for w in _WORD.findall(text)))
    meaningful = [w for w in words if w not in STOPWORDS]
    chosen = meaningful or words
    if not chosen:
        return None
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in chosen)


def search(index: MemoryIndex, params: SearchParams) -> SearchOutcome:
    """Run `params.query` against `index` (blocking; the caller syncs the index first)."""
    k = max(1, params.max_results * params.candidate_multiplier)
    query_vector, note = _embed_query(index, params.query)  # outside the lock: it may wait on the network
    with index.lock:
        text_rows = _keyword_candidates(index.conn, params.query, k)
        vector_scores = None
        if query_vector is not None:
            table = index.vectors()
            if len(table):
                vector_scores = table.scores(query_vector)
            else:
                note = "keyword-only: no chunk has a vector yet (run `claw memory index`)"
        hybrid = vector_scores is not None
        best_bm25 = max((row[5] for row in text_rows), default=0.0)
        candidates: dict[int, tuple[Any, ...]] = {row[0]: row for row in text_rows}
        if hybrid and vector_scores:
            top = sorted(vector_scores.items(), key=lambda item: item[1], reverse=True)[:k]
            missing = [chunk_id for chunk_id, _ in top if chunk_id not in candidates]
            for row in _rows_by_id(index.conn, missing):
                candidates[row[0]] = (*row, None)
    vw, tw = (params.vector_weight, params.text_weight) if hybrid else (0.0, 1.0)
    total = (vw + tw) or 1.0
    hits = []
    for chunk_id, (_, path, start, end, text, bm25) in candidates.items():
        text_score = bm25 / best_bm25 if bm25 is not None and best_bm25 > 0 else 0.0
        vector = vector_scores.get(chunk_id) if vector_scores is not None else None
        score = (vw * max(0.0, vector or 0.0) + tw * text_score) / total
        if score >= params.min_score:
            hits.append(SearchHit(path, start, end, score, _snippet(text), text_score, vector, bm25))
    hits.sort(key=lambda h: (-h.score, h.path, h.start_line))
    weights = {"vector": vw / total, "text": tw / total}
    model = index.embedder.model if hybrid and index.embedder else None
    return SearchOutcome(hits[: params.max_results], "hybrid" if hybrid else "keyword", model, note, weights)


def _keyword_candidates(conn: sqlite3.Connection, query: str, k: int) -> list[tuple[Any, ...]]:
    """(id, path, start, end, text, bm25) of the best keyword matches; bm25 made positive (higher is better)."""
    match = fts_query(query)
    if match is None:
        return []
    rows = conn.execute(
        "SELECT c.id, c.path, c.start_line, c.end_line, c.text, -bm25(chunks_fts) AS relevance "
        "FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
        "WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts) LIMIT ?",
        (match, k),
    ).fetchall()
    return [tuple(row) for row in rows]


def _embed_query(index: MemoryIndex, query: str) -> tuple[list[float] | None, str | None]:
    """The query's vector, or None and why keyword-only search is used."""
    if index.embedder is None:
        return None, "keyword-only: no embeddings configured (set memory.embeddings.model)"
    if not index.embeddings_ready():
        return None, "keyword-only: the embeddings endpoint failed recently"
    try:
        return index.embedder.embed([query])[0], None
    except EmbeddingError as exc:
        return None, f"keyword-only: {index.embeddings_failed(exc)}"


def _rows_by_id(conn: sqlite3.Connection, ids: list[int]) -> list[tuple[Any, ...]]:
    if not ids:
        return []
    marks = ",".join("?" * len(ids))
    query = f"SELECT id, path, start_line, end_line, text FROM chunks WHERE id IN ({marks})"
    return [tuple(row) for row in conn.execute(query, ids)]


def _snippet(text: str) -> str:
    text = text.strip()
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"
