"""`claw memory search` as a new user meets it: MEMORY.md from the template with a few facts in it.

Each test runs the real CLI in a subprocess. What they pin: a hit cites the section that holds the
fact, not the whole file; `--explain` shows SQLite's own bm25 and the normalised score; turning on
embeddings never loses what keyword search finds; an index from an older claw is rebuilt.
"""

from __future__ import annotations

import json
import sqlite3

from claw.memory.search import BM25_WEIGHTS
from claw.paths import Paths
from tests.memory.conftest import EMBED_MODEL, write_config
from tests.memory.first_contact import LINES, TITLE, blind_to_digits, write_memory, write_v1_index
from tests.memory.test_cli import claw
from tests.support.fixtures import ClawEnv


def _workspace(env: ClawEnv):
    return env.home / "workspace"


def _first_hit(env: ClawEnv, *args: str) -> dict:
    found = json.loads(claw(env, "memory", "search", *args, "--json").stdout)
    assert found["results"], found
    return found["results"][0]


def test_a_hit_cites_the_section_that_holds_the_fact_not_the_whole_file(claw_env: ClawEnv) -> None:
    write_memory(_workspace(claw_env))
    found = claw(claw_env, "memory", "search", "Dvorak keyboard")
    assert f"1. MEMORY.md#L20-L23  score 1.000  · {TITLE} › Preferences and decisions" in found.stdout
    preview = found.stdout.split("1. MEMORY.md#L20-L23", 1)[1].splitlines()[1:]
    assert preview[0] == "   ## Preferences and decisions" and "   - Uses the Dvorak keyboard layout." in preview
    assert "Curated facts" not in found.stdout and f"#L1-L{LINES}" not in found.stdout

    for query, citation in [("Alex birthday", "MEMORY.md#L10-L13"), ("landlord heating", "MEMORY.md#L25-L28")]:
        hit = _first_hit(claw_env, query)
        assert hit["citation"] == citation and hit["heading"].startswith(TITLE)


def test_explain_shows_the_real_bm25_and_the_normalised_score(claw_env: ClawEnv) -> None:
    write_memory(_workspace(claw_env))
    explained = claw(claw_env, "memory", "search", "Dvorak", "--explain").stdout
    hit = _first_hit(claw_env, "Dvorak", "--explain")

    db = sqlite3.connect(Paths.from_env().memory_index("main"))  # SQLite's own bm25 for the same chunk
    (expected,) = db.execute(
        "SELECT bm25(chunks_fts, ?, ?) FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid "
        "WHERE chunks_fts MATCH '\"dvorak\"' AND c.start_line = 20",
        BM25_WEIGHTS,
    ).fetchone()
    db.close()
    assert expected < -0.1  # a real value, not the ~0 of a one-chunk index
    assert hit["bm25"] == float(f"{expected:.6g}") == hit["bestBm25"] and hit["textScore"] == 1.0
    assert "   = keyword 1.000\n" in explained
    assert f"keyword 1.000 = bm25 {expected:.4g} / {expected:.4g}, the best bm25 for this query" in explained
    assert "bm25 0 " not in explained and "lower is a better match" in explained


def test_with_embeddings_the_query_that_finds_a_fact_keyword_only_still_finds_it(claw_env: ClawEnv) -> None:
    write_memory(_workspace(claw_env))
    keyword = claw(claw_env, "memory", "search", "4471")
    assert keyword.stdout.startswith("keyword-only") and "1. MEMORY.md#L25-L28" in keyword.stdout

    claw_env.server.embed_text = blind_to_digits  # a model that sees nothing in a ticket number
    write_config(claw_env, f'[memory.embeddings]\nmodel = "{EMBED_MODEL}"\n')
    hybrid = claw(claw_env, "memory", "search", "4471", "--explain")
    assert hybrid.stdout.startswith(f"hybrid search ({EMBED_MODEL}): 0.70 vector + 0.30 keyword")
    assert "No matches." not in hybrid.stdout
    assert "1. MEMORY.md#L25-L28  score 1.000" in hybrid.stdout
    assert "   = max(0.70 × vector " in hybrid.stdout and " + 0.30 × keyword 1.000, keyword 1.000)" in hybrid.stdout
    hit = _first_hit(claw_env, "4471", "--explain")
    assert hit["vectorScore"] is not None and abs(hit["vectorScore"]) < 0.05
    assert hit["weightedScore"] < 0.35 <= hit["score"]  # below minScore by the weighted mean, kept by the rule
    assert any(r.path == "/v1/embeddings" for r in claw_env.server.requests)


def test_an_index_built_by_an_older_claw_is_rebuilt_before_it_is_searched(claw_env: ClawEnv) -> None:
    workspace = _workspace(claw_env)
    write_memory(workspace)
    write_v1_index(Paths.from_env().memory_index("main"), workspace)  # MEMORY.md as one chunk, up to date
    assert _first_hit(claw_env, "Dvorak")["citation"] == "MEMORY.md#L20-L23"
    status = json.loads(claw(claw_env, "memory", "status", "--json").stdout)
    assert status["files"] == 1 and status["chunks"] == 5
