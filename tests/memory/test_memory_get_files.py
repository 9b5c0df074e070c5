"""`memory_get` opens what it checked: the file judged is the file read (claw.tools.safe_open), so a hard link
to a file outside the workspace, a FIFO or a directory named like a note is refused, never read or waited on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claw.errors import ClawError, NotFoundError
from claw.memory.get_tool import read_memory


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "workspace"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# Memory\n- one\n- two\n- three\n", encoding="utf-8")
    return ws


def test_a_window_of_lines(workspace: Path) -> None:
    assert read_memory(workspace, "MEMORY.md", 2, 2, allow_hardlinks=False) == "- one\n- two"
    with pytest.raises(ClawError, match="beyond the end"):
        read_memory(workspace, "MEMORY.md", 50, None, allow_hardlinks=False)
    with pytest.raises(NotFoundError):
        read_memory(workspace, "memory/none.md", 1, None, allow_hardlinks=False)


def test_a_hard_link_to_a_file_outside_is_refused_unless_allowed(workspace: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("the password\n", encoding="utf-8")
    os.link(secret, workspace / "memory" / "linked.md")
    with pytest.raises(ClawError, match="hard links"):
        read_memory(workspace, "memory/linked.md", 1, None, allow_hardlinks=False)
    assert read_memory(workspace, "memory/linked.md", 1, None, allow_hardlinks=True) == "the password"


def test_a_fifo_or_a_directory_is_refused_without_waiting(workspace: Path) -> None:
    os.mkfifo(workspace / "memory" / "pipe.md")
    (workspace / "memory" / "folder.md").mkdir()
    with pytest.raises(ClawError, match="not a regular file"):
        read_memory(workspace, "memory/pipe.md", 1, None, allow_hardlinks=False)
    with pytest.raises(ClawError, match="is a directory"):
        read_memory(workspace, "memory/folder.md", 1, None, allow_hardlinks=False)
