"""The reference pages under docs/reference/ are current: regenerated from the code (the settings models, the Typer
app, the RPC table, the run-event vocabulary) they equal the committed ones. After changing any of those, run
`python scripts/gen-docs-reference.py` and commit what it writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
COMMITTED = REPO / "docs" / "reference"


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("reference")
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen-docs-reference.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return out


def test_the_generator_writes_every_committed_page(regenerated: Path) -> None:
    assert sorted(path.name for path in regenerated.iterdir()) == sorted(path.name for path in COMMITTED.iterdir())


@pytest.mark.parametrize("name", sorted(path.name for path in COMMITTED.iterdir()))
def test_the_committed_page_is_current(regenerated: Path, name: str) -> None:
    fresh = (regenerated / name).read_text(encoding="utf-8")
    assert (COMMITTED / name).read_text(encoding="utf-8") == fresh, (
        f"docs/reference/{name} is stale: run `python scripts/gen-docs-reference.py` and commit it"
    )


def test_a_bad_argument_is_a_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "gen-docs-reference.py"), "a", "b"], capture_output=True, text=True
    )
    assert done.returncode == 2 and done.stderr.startswith("usage:") and "Traceback" not in done.stderr
