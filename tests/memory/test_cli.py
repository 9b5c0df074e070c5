"""`claw memory search|index|status` as real subprocesses against a temporary CLAW_HOME."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.memory.conftest import EMBED_MODEL, write_config
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw

REPO_ROOT = Path(__file__).resolve().parents[2]


def claw(env: ClawEnv, *args: str, expect: int = 0) -> subprocess.CompletedProcess[str]:
    done = run_claw(env.env, *args)
    assert done.returncode == expect, f"claw {' '.join(args)} -> {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def test_status_index_and_search_keyword_only(claw_env: ClawEnv, corpus: Path) -> None:
    status = claw(claw_env, "memory", "status")
    assert "Files:        13" in status.stdout and "off (keyword-only search)" in status.stdout
    assert "Last indexed: 20" in status.stdout
    as_json = json.loads(claw(claw_env, "memory", "status", "--json").stdout)
    assert as_json["files"] == 13 and as_json["embeddings"]["enabled"] is False

    indexed = claw(claw_env, "memory", "index", "--force")
    assert indexed.stdout.startswith("Rebuilt ") and "13 files" in indexed.stdout

    found = claw(claw_env, "memory", "search", "tax deadline accountant")
    lines = found.stdout.splitlines()
    assert lines[0].startswith("keyword-only")
    assert "1. memory/2025-03-09.md#L1-L2" in found.stdout and "Helen" in found.stdout

    explained = claw(claw_env, "memory", "search", "tax deadline", "--explain")
    assert "   = keyword 1.000\n   keyword 1.000 = bm25 -" in explained.stdout

    raw = json.loads(claw(claw_env, "memory", "search", "Kyoto", "--json", "-n", "1").stdout)
    assert raw["mode"] == "keyword" and [r["path"] for r in raw["results"]] == ["memory/2025-01-20.md"]


def test_hybrid_search_explains_both_parts(claw_env: ClawEnv, corpus: Path) -> None:
    write_config(claw_env, f'[memory.embeddings]\nmodel = "{EMBED_MODEL}"\n')
    status = json.loads(claw(claw_env, "memory", "status", "--json").stdout)
    assert status["embeddings"] == {"enabled": True, "model": EMBED_MODEL, "provider": "openai", "error": None}
    assert status["vectors"] == status["chunks"] > 0
    found = claw(claw_env, "memory", "search", "sourdough starter", "--explain")
    assert found.stdout.startswith(f"hybrid search ({EMBED_MODEL}): 0.70 vector + 0.30 keyword")
    assert "1. memory/2025-02-14.md" in found.stdout
    assert "= max(0.70 × vector 0." in found.stdout and "+ 0.30 × keyword 1.000, keyword 1.000)" in found.stdout
    assert any(r.path == "/v1/embeddings" for r in claw_env.server.requests)


def test_user_errors_are_one_line(claw_env: ClawEnv, corpus: Path) -> None:
    empty = claw(claw_env, "memory", "search", "  ", expect=2)
    assert empty.stderr.strip() == "claw: the query is empty: say what to look for"
    write_config(claw_env, "[memory]\nvectorWeight = -1\n")
    bad = claw(claw_env, "memory", "status", expect=2)
    assert len(bad.stderr.strip().splitlines()) == 1 and "memory.vectorWeight" in bad.stderr
    assert "Traceback" not in bad.stderr
    write_config(claw_env, "")
    unknown = claw(claw_env, "memory", "status", "--agent", "nobody", expect=2)
    assert "unknown agent 'nobody'" in unknown.stderr


def test_memory_help_stays_import_light() -> None:
    probe = (
        "import sys\nfrom claw.cli.app import register\napp = register()\n"
        "for args in (['memory', '--help'], ['memory', 'search', '--help']):\n"
        "    try:\n        app(args, standalone_mode=False)\n    except SystemExit:\n        pass\n"
        "print(sorted(m for m in ('openai', 'textual', 'numpy', 'sqlite3', 'claw.memory.index') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO_ROOT)
    assert "search" in done.stdout and done.stdout.strip().splitlines()[-1] == "[]"
