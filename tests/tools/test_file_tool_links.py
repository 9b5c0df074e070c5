"""Hard links and symlinks through read, write and edit: what is refused, what still works, and the setting."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from claw.config import AgentSettings
from claw.tools.base import ToolContext
from tests.tools.conftest import CallTool, MakeCtx
from tests.tools.helpers import snapshot

HARDLINK_REFUSAL = (
    "{tool}: hard has 2 hard links, so it may be a file from outside the workspace; "
    "set agents.defaults.tools.files.allowHardlinks = true to allow hard-linked files"
)
TOOLS = {
    "read": {},
    "write": {"content": "pwned\n"},
    "edit": {"oldText": "top secret", "newText": "pwned"},
}


def _allowing_hardlinks(ctx: ToolContext) -> ToolContext:
    return replace(ctx, settings=AgentSettings.model_validate({"tools": {"files": {"allowHardlinks": True}}}))


@pytest.mark.parametrize("tool", list(TOOLS))
async def test_hard_link_to_an_outside_file_is_refused(
    call: CallTool, workspace: Path, outside: Path, tool: str
) -> None:
    os.link(outside / "secret.txt", workspace / "hard")
    before = snapshot(outside)

    result = await call(tool, path="hard", **TOOLS[tool])

    assert result.is_error
    assert result.text == HARDLINK_REFUSAL.format(tool=tool)
    assert snapshot(outside) == before
    assert (workspace / "hard").stat().st_nlink == 2  # still the same file: nothing replaced it


async def test_hard_links_are_opened_when_the_setting_allows_them(
    call: CallTool, ctx: ToolContext, workspace: Path, outside: Path
) -> None:
    os.link(outside / "secret.txt", workspace / "hard")
    allowing = _allowing_hardlinks(ctx)

    assert (await call("read", path="hard", context=allowing)).text == "top secret\n"
    edited = await call("edit", path="hard", oldText="top", newText="no", context=allowing)
    assert edited.text == "edited hard: replaced 1 occurrence at line 1"
    assert (workspace / "hard").read_text() == "no secret\n"
    # The edit replaced the workspace name; the outside file behind the old link is as it was.
    assert (outside / "secret.txt").read_text() == "top secret\n"
    os.link(outside / "secret.txt", workspace / "hard2")
    written = await call("write", path="hard2", content="new\n", context=allowing)
    assert not written.is_error
    assert (workspace / "hard2").read_text() == "new\n"
    assert (outside / "secret.txt").read_text() == "top secret\n"


def test_the_setting_is_off_by_default_and_read_from_camel_case() -> None:
    assert AgentSettings().tools.files.allow_hardlinks is False
    assert AgentSettings.model_validate({"tools": {"files": {"allowHardlinks": True}}}).tools.files.allow_hardlinks


async def test_hard_links_in_a_skills_root_are_read(call: CallTool, make_ctx: MakeCtx, tmp_path: Path) -> None:
    """Skill roots are read-only and installed by the operator; installers such as uv hard-link their files."""
    skills = tmp_path / "skills"
    (skills / "demo").mkdir(parents=True)
    (skills / "demo" / "SKILL.md").write_text("Do the thing.\n")
    os.link(skills / "demo" / "SKILL.md", tmp_path / "cache-copy")
    result = await call("read", path=str(skills / "demo" / "SKILL.md"), context=make_ctx(read_roots=(skills,)))
    assert result.text == "Do the thing.\n"


async def test_symlinks_that_stay_inside_are_followed(call: CallTool, workspace: Path) -> None:
    (workspace / "docs" / "deep").mkdir(parents=True)
    (workspace / "real.txt").write_text("top\n")
    (workspace / "docs" / "real.txt").write_text("docs\n")
    (workspace / "docs" / "deep" / "a.md").write_text("a\n")
    (workspace / "docs-link").symlink_to("docs", target_is_directory=True)
    (workspace / "deep-link").symlink_to("docs/deep", target_is_directory=True)
    (workspace / "docs" / "up").symlink_to("../real.txt")
    (workspace / "absolute").symlink_to(workspace / "real.txt")
    (workspace / "chain").symlink_to("docs-link/up")

    async def read(path: str) -> str:
        result = await call("read", path=path)
        assert not result.is_error, result.text
        return result.text

    assert await read("docs-link/deep/a.md") == "a\n"
    assert await read("docs/up") == "top\n"
    assert await read("absolute") == "top\n"
    assert await read("chain") == "top\n"
    # `..` after a symlinked folder goes to the target's parent, as the kernel resolves it.
    assert await read("deep-link/../real.txt") == "docs\n"
    assert await read(str(workspace / "docs-link" / "deep" / "a.md")) == "a\n"
    assert await read("docs/../docs/./deep/a.md") == "a\n"


async def test_workspace_configured_through_a_symlink(
    call: CallTool, ctx: ToolContext, workspace: Path, tmp_path: Path
) -> None:
    via = tmp_path / "via"
    via.symlink_to(workspace, target_is_directory=True)
    (workspace / "a.txt").write_text("a\n")
    aliased = replace(ctx, workspace=via)
    assert (await call("read", path="a.txt", context=aliased)).text == "a\n"
    assert (await call("read", path=str(via / "a.txt"), context=aliased)).text == "a\n"
    assert (await call("read", path=str(workspace / "a.txt"), context=aliased)).text == "a\n"
    assert not (await call("write", path=str(via / "b.txt"), content="b\n", context=aliased)).is_error
    assert (workspace / "b.txt").read_text() == "b\n"


LEADING_OUT = {  # path argument, then the links to make: name -> target
    "chain": ("chain", {"chain": "hop", "hop": "../outside/secret.txt"}),
    "absolute-dotdot": ("back", {"back": "{workspace}/../outside/secret.txt"}),
    "proc-root": ("proc", {"proc": "/proc/self/root{outside}/secret.txt"}),
    "proc-root-folder": ("d/secret.txt", {"d": "/proc/self/root{outside}"}),
}


@pytest.mark.parametrize("form", list(LEADING_OUT))
@pytest.mark.parametrize("tool", list(TOOLS))
async def test_symlinks_that_lead_out_are_refused(
    call: CallTool, workspace: Path, outside: Path, tool: str, form: str
) -> None:
    path, links = LEADING_OUT[form]
    for name, target in links.items():
        (workspace / name).symlink_to(target.format(workspace=workspace, outside=outside))
    before = snapshot(outside)
    result = await call(tool, path=path, **TOOLS[tool])
    assert result.is_error and result.text == f"path escapes workspace: {path}"
    assert snapshot(outside) == before


@pytest.mark.parametrize(
    "path",
    [
        "/proc/self/root{outside}/secret.txt",
        "/proc/self/cwd/../../../../../../..{outside}/secret.txt",
        "..",
        "{workspace}/../outside/secret.txt",
    ],
)
async def test_proc_and_dotdot_paths_out_are_refused(call: CallTool, workspace: Path, outside: Path, path: str) -> None:
    given = path.format(outside=outside, workspace=workspace)
    result = await call("read", path=given)
    assert result.is_error and result.text == f"path escapes workspace: {given}"


async def test_paths_ending_on_a_directory(call: CallTool, workspace: Path) -> None:
    (workspace / "sub").mkdir()
    assert (await call("read", path=".")).text == "read: . is a directory; give a file path"
    assert (await call("read", path="sub/..")).text == "read: sub/.. is a directory; give a file path"
    written = await call("write", path="sub/.", content="x")
    assert written.is_error and written.text == "write: sub/. is a directory; give a file path"


async def test_dangling_symlinks_inside(call: CallTool, workspace: Path) -> None:
    (workspace / "later.txt").symlink_to("notes/2025/later.txt")
    missing = await call("read", path="later.txt")
    assert missing.is_error and missing.text == "no such file: later.txt"
    assert (await call("edit", path="later.txt", oldText="a", newText="b")).text == "no such file: later.txt"
    # A write through it creates what it names, parent folders included, and leaves the link a link.
    assert not (await call("write", path="later.txt", content="now\n")).is_error
    assert (workspace / "later.txt").is_symlink()
    assert (workspace / "notes" / "2025" / "later.txt").read_text() == "now\n"


async def test_symlink_loop_is_an_error_not_an_escape(call: CallTool, workspace: Path) -> None:
    (workspace / "loop").symlink_to("loop")
    for tool in TOOLS:
        result = await call(tool, path="loop", **TOOLS[tool])
        assert result.is_error and result.text == "too many levels of symbolic links: loop"
    assert (workspace / "loop").is_symlink()


async def test_a_file_where_a_folder_should_be(call: CallTool, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a\n")
    assert (await call("read", path="a.txt/b.txt")).text == "no such file: a.txt/b.txt"
    written = await call("write", path="a.txt/b.txt", content="b")
    assert written.text == "cannot create a.txt/b.txt: a.txt is a file, not a directory"


async def test_refusals_leave_no_descriptor_open(call: CallTool, workspace: Path, outside: Path) -> None:
    os.link(outside / "secret.txt", workspace / "hard")
    (workspace / "sub").mkdir()
    (workspace / "ok.txt").write_text("ok\n")
    before = set(os.listdir("/proc/self/fd"))
    for _ in range(20):
        for tool, args in TOOLS.items():
            for path in ("hard", "sub", "ok.txt", "missing.txt"):
                await call(tool, path=path, **args)
    assert set(os.listdir("/proc/self/fd")) == before
