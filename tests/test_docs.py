"""The docs site builds with `mkdocs build --strict`: a broken link, a missing image, a page left out of the nav or
a snippet naming a missing file fails the suite (mkdocs.yml turns each of these into a warning, strict into an
error)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_the_docs_build_strict(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml")]
        + ["-d", str(tmp_path / "site")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "getting-started" / "index.html").is_file()


def test_the_top_level_pages_link_only_to_what_exists() -> None:
    """README.md, CONTRIBUTING.md, SECURITY.md and DESIGN.md are read on the forge, outside the site: every
    relative link and image they have points at a file of the repository."""
    missing = []
    for name in ("README.md", "CONTRIBUTING.md", "SECURITY.md", "DESIGN.md"):
        text = (REPO / name).read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if "://" in target or target.startswith("#"):
                continue
            if not (REPO / target.split("#")[0]).exists():
                missing.append(f"{name}: {target}")
    assert missing == []
