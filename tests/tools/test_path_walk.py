"""locate: where a path leads, what it creates on the way, and that it leaves no descriptor open."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claw.errors import ClawError, NotFoundError, PathEscapeError
from claw.tools.path_walk import locate


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def test_located_names_the_final_component_in_its_real_directory(workspace: Path) -> None:
    (workspace / "notes").mkdir()
    (workspace / "notes" / "a.md").write_text("a")
    (workspace / "alias").symlink_to("notes", target_is_directory=True)
    with locate(workspace, "alias/a.md") as where:
        assert where.name == "a.md"
        assert where.real == workspace.resolve() / "notes" / "a.md"
        assert where.in_workspace and where.stat is not None
        assert os.stat(where.name, dir_fd=where.dir_fd).st_ino == (workspace / "notes" / "a.md").stat().st_ino
    with locate(workspace, "notes/new.md") as where:
        assert where.name == "new.md" and where.stat is None


def test_extra_roots_are_not_the_workspace(workspace: Path, tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    skills.mkdir()
    (skills / "SKILL.md").write_text("s")
    with locate(workspace, str(skills / "SKILL.md"), extra_roots=(skills,)) as where:
        assert where.real == skills.resolve() / "SKILL.md" and not where.in_workspace
    with pytest.raises(PathEscapeError):
        locate(workspace, str(skills / "SKILL.md"))


def test_parents_are_created_only_when_asked_and_only_inside(workspace: Path, outside: Path) -> None:
    with pytest.raises(NotFoundError, match="no such file: a/b/c.txt"):
        locate(workspace, "a/b/c.txt")
    assert not (workspace / "a").exists()
    locate(workspace, "a/b/c.txt", create_parents=True).close()
    assert (workspace / "a" / "b").is_dir() and not (workspace / "a" / "b" / "c.txt").exists()
    (workspace / "out").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathEscapeError):
        locate(workspace, "out/new/c.txt", create_parents=True)
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_no_descriptor_is_left_open(workspace: Path, outside: Path) -> None:
    (workspace / "d" / "e").mkdir(parents=True)
    (workspace / "d" / "e" / "f.txt").write_text("f")
    (workspace / "out").symlink_to(outside, target_is_directory=True)
    (workspace / "loop").symlink_to("loop")
    before = _open_fds()
    for _ in range(50):
        locate(workspace, "d/e/../e/f.txt").close()
        for bad, error in (("out/secret.txt", PathEscapeError), ("loop", ClawError), ("x/y", NotFoundError)):
            with pytest.raises(error):
                locate(workspace, bad)
    assert _open_fds() == before
