"""Search relevance on the fixed corpus: the expected file ranks first, keyword-only and hybrid."""

from __future__ import annotations

import pytest

from claw.memory.search import fts_query
from tests.memory.conftest import EMBED_MODEL, MakeManager
from tests.memory.corpus import QUERIES
from tests.support.fixtures import ClawEnv


@pytest.mark.parametrize("embeddings", [False, True], ids=["keyword", "hybrid"])
async def test_expected_file_ranks_first_for_every_query(make_manager: MakeManager, embeddings: bool) -> None:
    manager = make_manager(embeddings=embeddings)
    assert len(QUERIES) >= 10
    for query, expected in QUERIES:
        outcome = await manager.search("main", manager.params(query))
        assert outcome.mode == ("hybrid" if embeddings else "keyword")
        assert outcome.hits, f"no hit for {query!r}"
        assert outcome.hits[0].path == expected, (query, [(h.path, round(h.score, 3)) for h in outcome.hits])


async def test_keyword_only_search_says_so_and_never_needs_embeddings(
    make_manager: MakeManager, claw_env: ClawEnv
) -> None:
    outcome = await make_manager().search("main", make_manager().params("sourdough"))
    assert outcome.mode == "keyword"
    assert outcome.note is not None and "no embeddings configured" in outcome.note
    assert outcome.hits[0].vector_score is None
    assert not [r for r in claw_env.server.requests if r.path == "/v1/embeddings"]


async def test_hybrid_scores_combine_vector_and_keyword_parts(make_manager: MakeManager, claw_env: ClawEnv) -> None:
    manager = make_manager(embeddings=True, vectorWeight=0.7, textWeight=0.3, minScore=0)
    outcome = await manager.search("main", manager.params("sourdough starter hydration"))
    assert outcome.model == EMBED_MODEL and outcome.weights == {"vector": 0.7, "text": 0.3}
    top = outcome.hits[0]
    assert top.vector_score is not None and top.vector_score > 0.2
    weighted = 0.7 * top.vector_score + 0.3 * top.text_score
    assert top.weighted_score == pytest.approx(weighted)
    assert top.score == pytest.approx(max(weighted, top.text_score))  # the keyword floor (see search.py)
    embedded = [r for r in claw_env.server.requests if r.path == "/v1/embeddings"]
    assert embedded and all(r.body["model"] == EMBED_MODEL for r in embedded)


async def test_max_results_and_min_score_are_honoured(make_manager: MakeManager) -> None:
    manager = make_manager()
    many = await manager.search("main", manager.params("the and priya ledger tax garden", max_results=2, min_score=0))
    assert len(many.hits) == 2
    strict = await manager.search("main", manager.params("priya ledger", min_score=0.99))
    assert all(h.score >= 0.99 for h in strict.hits)


async def test_embedding_endpoint_failure_falls_back_to_keywords(make_manager: MakeManager, claw_env: ClawEnv) -> None:
    manager = make_manager(embeddings={"baseUrl": "http://127.0.0.1:9/v1", "timeoutSeconds": 2})
    outcome = await manager.search("main", manager.params("sourdough"))
    assert outcome.mode == "keyword" and outcome.note and "keyword-only" in outcome.note
    assert outcome.hits[0].path == "memory/2025-02-14.md"


def test_keyword_query_drops_stopwords_and_quotes_words() -> None:
    assert fts_query('what did we decide about "postgres"?') == '"decide" OR "postgres"'
    assert fts_query("the") == '"the"'
    assert fts_query("?!") is None
