"""Hybrid search over a `MemoryIndex`: BM25 (FTS5) and, when embeddings are on, cosine similarity.

Each side contributes `maxResults × candidateMultiplier` candidates; every score is in 0..1.

- **keyword** part: SQLite FTS5's `bm25()` of the chunk (text and headings, headings weighted
  half), which is negative, lower meaning a better match, scaled against the query's best
  match: `keyword = bm25 / best bm25`, so the best keyword hit scores 1 and a chunk without the
  query's words 0. Raw values are kept (`SearchHit.bm25`, `best_bm25`) so `--explain` can show them.
- **vector** part: the cosine similarity of the query's and the chunk's embeddings (negative
  similarities count as 0), computed exactly for every candidate.

Keyword-only search (no embeddings configured, or the endpoint failing; `SearchOutcome.note`
says which) scores a chunk by its keyword part alone. Hybrid search scores it

    score = max(vw·vector + tw·keyword, keyword)      (weights normalised to sum to 1)

The weighted mean lets meaning lift a chunk (a paraphrase with none of the query's words still
scores vw·vector), and the `max` is the rule that turning embeddings on never loses a keyword
hit: no chunk scores lower in hybrid search than keyword-only search would score it, so
everything keyword-only search keeps above `minScore` hybrid search keeps too. Without it, an
exact name or number the embedding model does not capture (vector ≈ 0) would score at most
tw = 0.3, below the default `minScore` of 0.35, and the best keyword hit would be dropped. The
price is that the best keyword hit (keyword = 1) always ranks first; the vectors order the rest
and bring in what shares no word with the query. The floor is left out only when `textWeight`
is 0: vector-only search chosen on purpose.
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


BM25_WEIGHTS = (1.0, 0.5)
"""FTS5 column weights for `bm25()`: the chunk's text, then its headings (context, so worth less)."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One chunk that matched: where it is, under which headings, how well it scored and why."""

    path: str
    start_line: int
    end_line: int
    score: float
    snippet: str
    heading: str
    text_score: float
    """The keyword part, 0..1: `bm25 / best_bm25`; 0 when the chunk has none of the query's words."""
    bm25: float | None
    """SQLite FTS5 `bm25()` for this chunk as SQLite computes it: negative, lower is better."""
    best_bm25: float | None
    """The lowest (best) `bm25()` of any chunk for this query: what `text_score` is scaled against."""
    vector_score: float | None
    """Cosine similarity with the query; None in keyword-only search or for a chunk without a vector."""
    weighted_score: float | None
    """Hybrid search's weighted mean of the two parts (before the keyword floor); None keyword-only."""

    def to_json(self, *, explain: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "score": round(self.score, 4),
            "snippet": self.snippet,
            "citation": f"{self.path}#L{self.start_line}-L{self.end_line}",
        }
        if self.heading:
            out["heading"] = self.heading
        if explain:
            out["textScore"] = round(self.text_score, 4)
            out["bm25"] = _significant(self.bm25)
            out["bestBm25"] = _significant(self.best_bm25)
            out["vectorScore"] = None if self.vector_score is None else round(self.vector_score, 4)
            out["weightedScore"] = None if self.weighted_score is None else round(self.weighted_score, 4)
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


def hybrid_score(vector: float | None, keyword: float, vector_weight: float, text_weight: float) -> tuple[float, float]:
    """(score, weighted mean) of one chunk in hybrid search, by the rule in the module docstring."""
    total = (vector_weight + text_weight) or 1.0
    weighted = (vector_weight * max(0.0, vector or 0.0) + text_weight * keyword) / total
    return (max(weighted, keyword) if text_weight > 0 else weighted), weighted


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
        best_bm25 = min((row[6] for row in text_rows), default=None)
        candidates: dict[int, tuple[Any, ...]] = {row[0]: row for row in text_rows}
        if hybrid and vector_scores:
            top = sorted(vector_scores.items(), key=lambda item: item[1], reverse=True)[:k]
            missing = [chunk_id for chunk_id, _ in top if chunk_id not in candidates]
            for row in _rows_by_id(index.conn, missing):
                candidates[row[0]] = (*row, None)
    vw, tw = (params.vector_weight, params.text_weight) if hybrid else (0.0, 1.0)
    total = (vw + tw) or 1.0
    hits = []
    for chunk_id, (_, path, start, end, text, heading, bm25) in candidates.items():
        # Both negative: the ratio is 1 for the best match and shrinks towards 0 for weaker ones.
        keyword = bm25 / best_bm25 if bm25 is not None and best_bm25 is not None and best_bm25 < 0 else 0.0
        vector = vector_scores.get(chunk_id) if vector_scores is not None else None
        score, weighted = hybrid_score(vector, keyword, vw, tw) if hybrid else (keyword, None)
        if score >= params.min_score:
            snippet = _snippet(text)
            hits.append(
                SearchHit(path, start, end, score, snippet, heading, keyword, bm25, best_bm25, vector, weighted)
            )
    hits.sort(key=lambda h: (-h.score, -(h.weighted_score or 0.0), h.path, h.start_line))
    weights = {"vector": vw / total, "text": tw / total}
    model = index.embedder.model if hybrid and index.embedder else None
    return SearchOutcome(hits[: params.max_results], "hybrid" if hybrid else "keyword", model, note, weights)


def _keyword_candidates(conn: sqlite3.Connection, query: str, k: int) -> list[tuple[Any, ...]]:
    """(id, path, start, end, text, heading, bm25) of the best keyword matches, bm25 as FTS5 gives it."""
    match = fts_query(query)
    if match is None:
        return []
    rank = "bm25(chunks_fts, {}, {})".format(*BM25_WEIGHTS)
    rows = conn.execute(
        f"SELECT c.id, c.path, c.start_line, c.end_line, c.text, c.heading, {rank} AS relevance "
        "FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
        "WHERE chunks_fts MATCH ? ORDER BY relevance LIMIT ?",
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
    query = f"SELECT id, path, start_line, end_line, text, heading FROM chunks WHERE id IN ({marks})"
    return [tuple(row) for row in conn.execute(query, ids)]


def _snippet(text: str) -> str:
    text = text.strip()
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1] + "…"


def _significant(value: float | None) -> float | None:
    """`value` to six significant digits: bm25 values can be tiny (FTS5 floors a common word's IDF at
    1e-6), so rounding to decimal places would show them as 0."""
    return None if value is None else float(f"{value:.6g}")
