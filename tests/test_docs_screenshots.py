"""scripts/docs-screenshots.py retakes the docs' console pictures from a scripted session: each SVG shows the screen
it is named after (Textual's own export, so the text is in the file)."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHOWN = {
    "main.svg": ["what does my SOUL.md say?", "read", "describes me as", "idle"],
    "tool-cards.svg": ["arguments:", '"command": "ls -1"', "result:", "exit code: 0"],
    "approval.svg": ["exec wants to run a command", "ls -1", "Approve once (o)", "Deny (Esc)"],
    "sessions.svg": ["Resume a session", "agent:main:work", "remember: the release is on Friday"],
    "context.svg": ["Context for agent:main:main", "SOUL.md", "tool schemas", "reserve for the reply"],
}


def _text(svg: str) -> str:
    """The characters drawn, row by row (each <text> run at its y), spaces restored."""
    rows: dict[str, list[str]] = {}
    for y, run in re.findall(r'<text [^>]*y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(y, []).append(html.unescape(run).replace("\xa0", " "))
    return "\n".join("".join(runs) for _y, runs in sorted(rows.items(), key=lambda item: float(item[0])))


@pytest.mark.timeout(180)
def test_the_script_takes_every_screenshot_the_docs_show(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "docs-screenshots.py"), str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=170,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(SHOWN)
    for name, expected in SHOWN.items():
        shown = _text((tmp_path / name).read_text(encoding="utf-8"))
        for words in expected:
            assert words in shown, (name, words, shown)
    committed = {path.name for path in (REPO / "docs" / "images").glob("*.svg")}
    assert committed == set(SHOWN)
