"""The read tool: windows of lines, the note that says where to go on, and what it refuses."""

from __future__ import annotations

import os
from pathlib import Path

from tests.tools.conftest import CallTool, MakeCtx


def _numbered(workspace: Path, name: str, count: int) -> None:
    (workspace / name).write_text("".join(f"line {i}\n" for i in range(1, count + 1)))


async def test_whole_small_file(call: CallTool, workspace: Path) -> None:
    (workspace / "a.txt").write_text("alpha\nbeta\n")
    result = await call("read", path="a.txt")
    assert not result.is_error
    assert result.text == "alpha\nbeta\n"


async def test_offset_and_limit_select_lines_and_say_what_remains(call: CallTool, workspace: Path) -> None:
    _numbered(workspace, "n.txt", 10)
    result = await call("read", path="n.txt", offset=3, limit=4)
    assert result.text == "line 3\nline 4\nline 5\nline 6\n[... 4 more lines; use offset=7 to read on]"
    rest = await call("read", path="n.txt", offset=7)
    assert rest.text == "line 7\nline 8\nline 9\nline 10\n"


async def test_default_limit_is_2000_lines(call: CallTool, workspace: Path) -> None:
    _numbered(workspace, "big.txt", 2500)
    result = await call("read", path="big.txt")
    lines = result.text.splitlines()
    assert lines[0] == "line 1" and lines[1999] == "line 2000"
    assert lines[-1] == "[... 500 more lines; use offset=2001 to read on]"
    assert len(lines) == 2001


async def test_offset_beyond_end_is_an_error(call: CallTool, workspace: Path) -> None:
    _numbered(workspace, "n.txt", 3)
    result = await call("read", path="n.txt", offset=9)
    assert result.is_error
    assert result.text == "read: offset 9 is beyond the end of n.txt (3 lines)"


async def test_bad_offset_argument(call: CallTool, workspace: Path) -> None:
    _numbered(workspace, "n.txt", 3)
    result = await call("read", path="n.txt", offset=0)
    assert result.is_error and "'offset' must be an integer >= 1" in result.text


async def test_binary_file_is_refused(call: CallTool, workspace: Path) -> None:
    (workspace / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    result = await call("read", path="blob.bin")
    assert result.is_error
    assert "blob.bin looks like a binary file" in result.text


async def test_directory_and_missing_file_are_refused(call: CallTool, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    directory = await call("read", path="sub")
    assert directory.is_error and directory.text == "read: sub is a directory; give a file path"
    os.mkfifo(workspace / "pipe")
    fifo = await call("read", path="pipe")
    assert fifo.is_error and fifo.text == "read: pipe is not a regular file"
    missing = await call("read", path="nope.txt")
    assert missing.is_error and missing.text == "no such file: nope.txt"


async def test_invalid_utf8_is_replaced_not_fatal(call: CallTool, workspace: Path) -> None:
    (workspace / "latin1.txt").write_bytes(b"caf\xe9\n")
    result = await call("read", path="latin1.txt")
    assert not result.is_error
    assert result.text == "caf\ufffd\n"


async def test_empty_file(call: CallTool, workspace: Path) -> None:
    (workspace / "empty.txt").write_text("")
    assert (await call("read", path="empty.txt")).text == "(empty file)"


async def test_one_enormous_line_is_cut_within_the_result_limit(
    call: CallTool, make_ctx: MakeCtx, workspace: Path
) -> None:
    (workspace / "min.js").write_text("x" * 3_000_000 + "\nsecond\n")
    ctx = make_ctx(result_max_chars=5_000)
    result = await call("read", path="min.js", context=ctx)
    assert len(result.text) <= 5_000
    assert "[... line 1 is longer than" in result.text
    assert result.text.endswith("[... 1 more lines; use offset=2 to read on]")
    assert (await call("read", path="min.js", offset=2, context=ctx)).text == "second\n"


async def test_reads_from_skill_roots_but_writes_there_are_refused(
    call: CallTool, make_ctx: MakeCtx, tmp_path: Path
) -> None:
    skills = tmp_path / "skills"
    (skills / "demo").mkdir(parents=True)
    skill_md = skills / "demo" / "SKILL.md"
    skill_md.write_text("---\nname: demo\n---\nDo the thing.\n")
    ctx = make_ctx(read_roots=(skills,))
    read = await call("read", path=str(skill_md), context=ctx)
    assert read.text == "---\nname: demo\n---\nDo the thing.\n"
    written = await call("write", path=str(skill_md), content="evil", context=ctx)
    assert written.is_error and written.text.startswith("path escapes workspace")
    edited = await call("edit", path=str(skill_md), oldText="thing", newText="evil", context=ctx)
    assert edited.is_error and edited.text.startswith("path escapes workspace")
    assert skill_md.read_text() == "---\nname: demo\n---\nDo the thing.\n"
