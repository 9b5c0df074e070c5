"""write and edit: exact results, atomic replacement, and edit's uniqueness rule."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from claw.config import AgentSettings
from claw.store.atomic import atomic_write_bytes
from claw.tools.base import ToolContext
from tests.tools.conftest import CallTool


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def _allowing_hardlinks(ctx: ToolContext) -> ToolContext:
    """These tests keep a second hard link as a witness of atomic replacement, which the default refuses."""
    return replace(ctx, settings=AgentSettings.model_validate({"tools": {"files": {"allowHardlinks": True}}}))


async def test_write_creates_parents_and_reports_bytes(call: CallTool, workspace: Path) -> None:
    result = await call("write", path="notes/2025/today.md", content="héllo\n")
    assert not result.is_error
    assert result.text == "wrote 7 bytes to notes/2025/today.md"
    assert (workspace / "notes" / "2025" / "today.md").read_text(encoding="utf-8") == "héllo\n"
    assert _leftovers(workspace / "notes" / "2025") == []


async def test_write_replaces_the_file_atomically(call: CallTool, ctx: ToolContext, workspace: Path) -> None:
    target = workspace / "doc.md"
    target.write_text("old\n")
    os.link(target, workspace / "hardlink-to-old")  # an in-place write would change this too
    target.chmod(0o640)

    result = await call("write", path="doc.md", content="new\n", context=_allowing_hardlinks(ctx))

    assert not result.is_error
    assert target.read_text() == "new\n"
    assert (workspace / "hardlink-to-old").read_text() == "old\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert _leftovers(workspace) == []


async def test_write_to_a_directory_is_an_error(call: CallTool, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    result = await call("write", path="sub", content="x")
    assert result.is_error and result.text == "write: sub is a directory; give a file path"


async def test_write_requires_content(call: CallTool) -> None:
    result = await call("write", path="a.txt")
    assert result.is_error and result.text == "write: missing required argument(s) 'content'"


def test_failed_atomic_write_leaves_no_temp_file_and_the_old_content(tmp_path: Path) -> None:
    target = tmp_path / "state.json"
    target.write_text("old")

    with pytest.raises(TypeError):  # fails after the temp file exists
        atomic_write_bytes(target, "not bytes")  # type: ignore[arg-type]
    assert target.read_text() == "old"
    assert _leftovers(tmp_path) == []


async def test_edit_replaces_the_unique_occurrence(call: CallTool, ctx: ToolContext, workspace: Path) -> None:
    target = workspace / "code.py"
    target.write_bytes(b"def a():\r\n    return 1\r\n\r\ndef b():\r\n    return 2\r\n")
    os.link(target, workspace / "hardlink-to-old")

    result = await call(
        "edit", path="code.py", oldText="return 2", newText="return 3", context=_allowing_hardlinks(ctx)
    )

    assert not result.is_error
    assert result.text == "edited code.py: replaced 1 occurrence at line 5"
    assert target.read_bytes() == b"def a():\r\n    return 1\r\n\r\ndef b():\r\n    return 3\r\n"
    assert b"return 2" in (workspace / "hardlink-to-old").read_bytes()
    assert _leftovers(workspace) == []


async def test_edit_with_no_occurrence(call: CallTool, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    result = await call("edit", path="a.txt", oldText="omega", newText="x")
    assert result.is_error
    assert result.text.startswith("edit: oldText not found in a.txt")
    assert (workspace / "a.txt").read_text() == "alpha\n"


async def test_edit_with_several_occurrences_says_how_many(call: CallTool, workspace: Path) -> None:
    (workspace / "a.txt").write_text("x = 1\nx = 1\nx = 1\n")
    result = await call("edit", path="a.txt", oldText="x = 1", newText="x = 2")
    assert result.is_error
    assert result.text.startswith("edit: oldText occurs 3 times in a.txt")
    assert (workspace / "a.txt").read_text() == "x = 1\nx = 1\nx = 1\n"


async def test_edit_refuses_missing_files_empty_old_text_and_non_utf8(call: CallTool, workspace: Path) -> None:
    missing = await call("edit", path="nope.txt", oldText="a", newText="b")
    assert missing.is_error and missing.text == "no such file: nope.txt"
    (workspace / "a.txt").write_text("abc")
    empty = await call("edit", path="a.txt", oldText="", newText="b")
    assert empty.is_error and empty.text == "edit: argument 'oldText' must not be empty"
    (workspace / "latin1.txt").write_bytes(b"caf\xe9")
    latin = await call("edit", path="latin1.txt", oldText="caf", newText="tea")
    assert latin.is_error and "not UTF-8" in latin.text
    assert (workspace / "latin1.txt").read_bytes() == b"caf\xe9"
