"""Which files are memory: MEMORY.md and memory/**/*.md, never anything a symlink leads out to."""

from __future__ import annotations

from pathlib import Path

from claw.memory.files import list_memory_files


def _rels(workspace: Path) -> list[str]:
    return [f.rel for f in list_memory_files(workspace)]


def test_memory_md_and_the_notes_folder(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").write_text("facts\n")
    (tmp_path / "memory" / "2025").mkdir(parents=True)
    (tmp_path / "memory" / "2025" / "01-02.md").write_text("note\n")
    (tmp_path / "memory" / "README.md").write_text("what this folder is\n")
    (tmp_path / "memory" / "todo.txt").write_text("not markdown\n")
    (tmp_path / "SOUL.md").write_text("not memory\n")
    assert _rels(tmp_path) == ["MEMORY.md", "memory/2025/01-02.md"]
    stamp = list_memory_files(tmp_path)[0]
    assert stamp.size == len("facts\n") and stamp.mtime_ns == (tmp_path / "MEMORY.md").stat().st_mtime_ns


def test_a_root_memory_file_that_is_a_folder_or_leads_outside_is_left_out(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    secret = tmp_path / "secret.md"
    secret.write_text("outside the workspace\n")
    (workspace / "MEMORY.md").symlink_to(secret)
    (workspace / "memory.md").mkdir()
    assert _rels(workspace) == []


def test_a_root_memory_file_may_link_to_a_note_but_counts_once(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "facts.md").write_text("facts\n")
    (tmp_path / "MEMORY.md").symlink_to(tmp_path / "memory" / "facts.md")
    assert _rels(tmp_path) == ["MEMORY.md"]
