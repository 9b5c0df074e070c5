"""resolve_in_workspace: what stays inside, and every way out that it must refuse."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claw.errors import ClawError, NotFoundError, PathEscapeError
from claw.tools.workspace_paths import resolve_in_workspace


def test_relative_and_absolute_paths_inside_resolve_to_real_paths(workspace: Path) -> None:
    (workspace / "notes").mkdir()
    (workspace / "notes" / "a.md").write_text("a")
    real = workspace.resolve() / "notes" / "a.md"
    assert resolve_in_workspace(workspace, "notes/a.md") == real
    assert resolve_in_workspace(workspace, str(workspace / "notes" / "a.md")) == real
    assert resolve_in_workspace(workspace, "notes/../notes/./a.md") == real
    assert resolve_in_workspace(workspace, "new/dir/file.txt") == workspace.resolve() / "new" / "dir" / "file.txt"


def test_symlink_that_stays_inside_resolves_to_its_target(workspace: Path) -> None:
    (workspace / "real.txt").write_text("x")
    (workspace / "alias.txt").symlink_to("real.txt")
    assert resolve_in_workspace(workspace, "alias.txt") == workspace.resolve() / "real.txt"


@pytest.mark.parametrize(
    "path",
    [
        "../outside/secret.txt",
        "foo/../../outside/secret.txt",
        "..",
        "/etc/passwd",
        "~/.ssh/id_rsa",
        "~root/x",
        "~",
    ],
)
def test_lexical_escapes_are_refused(workspace: Path, outside: Path, path: str) -> None:
    with pytest.raises(PathEscapeError) as info:
        resolve_in_workspace(workspace, path)
    assert str(info.value) == f"path escapes workspace: {path}"


def test_absolute_path_outside_is_refused(workspace: Path, outside: Path) -> None:
    with pytest.raises(PathEscapeError):
        resolve_in_workspace(workspace, str(outside / "secret.txt"))


def test_nul_byte_is_refused_and_shown_escaped(workspace: Path) -> None:
    with pytest.raises(PathEscapeError) as info:
        resolve_in_workspace(workspace, "foo\x00.txt")
    assert str(info.value) == "path escapes workspace: foo\\x00.txt"


def test_symlinks_leading_out_are_refused(workspace: Path, outside: Path) -> None:
    (workspace / "link").symlink_to(outside / "secret.txt")
    (workspace / "dangling").symlink_to(outside / "not-yet.txt")
    (workspace / "dirlink").symlink_to(outside)
    (workspace / "relative").symlink_to("../outside/secret.txt")
    for path in ("link", "dangling", "dirlink/secret.txt", "dirlink/new/deeper.txt", "relative"):
        with pytest.raises(PathEscapeError):
            resolve_in_workspace(workspace, path)
    assert not (outside / "not-yet.txt").exists()
    assert not (outside / "new").exists()


def test_workspace_reached_through_a_symlink_still_works(tmp_path: Path, workspace: Path) -> None:
    via = tmp_path / "via"
    via.symlink_to(workspace)
    (workspace / "a.txt").write_text("a")
    assert resolve_in_workspace(via, "a.txt") == workspace.resolve() / "a.txt"
    assert resolve_in_workspace(via, str(via / "a.txt")) == workspace.resolve() / "a.txt"


def test_extra_roots_allow_reading_there_only_when_passed(workspace: Path, tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    (skills / "demo").mkdir(parents=True)
    (skills / "demo" / "SKILL.md").write_text("---\nname: demo\n---\n")
    target = str(skills / "demo" / "SKILL.md")
    assert resolve_in_workspace(workspace, target, extra_roots=(skills,)) == skills.resolve() / "demo" / "SKILL.md"
    with pytest.raises(PathEscapeError):
        resolve_in_workspace(workspace, target)


def test_must_exist_and_empty_path(workspace: Path) -> None:
    with pytest.raises(NotFoundError, match="no such file: missing.txt"):
        resolve_in_workspace(workspace, "missing.txt", must_exist=True)
    with pytest.raises(ClawError, match="path is required"):
        resolve_in_workspace(workspace, "  ")


def test_symlink_loop_is_not_an_escape(workspace: Path) -> None:
    os.symlink("loop", workspace / "loop")
    resolved = resolve_in_workspace(workspace, "loop")
    assert workspace.resolve() in resolved.parents
