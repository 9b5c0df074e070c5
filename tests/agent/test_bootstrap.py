"""Bootstrap files: order, empty files skipped, per-file and total caps with a visible marker."""

from __future__ import annotations

from pathlib import Path

from claw.agent.bootstrap import BootstrapLoader, trim_bootstrap


def test_order_and_empty_files(tmp_path: Path) -> None:
    for name, text in {
        "USER.md": "user",
        "SOUL.md": "soul",
        "AGENTS.md": "   \n",
        "TOOLS.md": "tools",
    }.items():
        (tmp_path / name).write_text(text)
    files = BootstrapLoader().load(tmp_path, 20_000, 150_000)
    assert [f.name for f in files] == ["SOUL.md", "TOOLS.md", "USER.md"]


def test_a_long_file_keeps_70_percent_head_and_20_percent_tail() -> None:
    text = "H" * 15_000 + "M" * 10_000 + "T" * 5_000
    out = trim_bootstrap("SOUL.md", text, 20_000)
    assert out.startswith("H" * 14_000)
    assert out.endswith("T" * 4_000)
    assert "[...truncated, read SOUL.md for full content...]" in out
    assert "kept 14000+4000 chars of 30000" in out
    assert "M" * 100 not in out


def test_total_budget_is_consumed_in_order(tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_text("s" * 900)
    (tmp_path / "AGENTS.md").write_text("a" * 900)
    (tmp_path / "TOOLS.md").write_text("t" * 900)
    files = BootstrapLoader().load(tmp_path, 1_000, 1_200)
    assert files[0].content == "s" * 900
    assert files[1].truncated and "truncated AGENTS.md" in files[1].content
    assert [f.name for f in files] == ["SOUL.md", "AGENTS.md"]


def test_edits_are_seen_on_the_next_load(tmp_path: Path) -> None:
    loader = BootstrapLoader()
    soul = tmp_path / "SOUL.md"
    soul.write_text("before")
    assert loader.load(tmp_path, 100, 1000)[0].content == "before"
    soul.write_text("after, longer")
    assert loader.load(tmp_path, 100, 1000)[0].content == "after, longer"
