"""Every path-escape form, through read, write and edit as the agent calls them: refused, nothing touched."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.tools.conftest import CallTool
from tests.tools.helpers import snapshot

HOME_PROBE = f"claw-jail-probe-{uuid.uuid4().hex}"


def _arrange(form: str, workspace: Path, outside: Path) -> tuple[str, str]:
    """Create what `form` needs; return (path argument, the expected escaped form in the message)."""
    if form == "dotdot":
        return "../outside/secret.txt", "../outside/secret.txt"
    if form == "nested-dotdot":
        (workspace / "foo").mkdir()
        return "foo/../../outside/secret.txt", "foo/../../outside/secret.txt"
    if form == "absolute":
        return str(outside / "secret.txt"), str(outside / "secret.txt")
    if form == "tilde":
        return f"~/{HOME_PROBE}", f"~/{HOME_PROBE}"
    if form == "tilde-user":
        return f"~root/{HOME_PROBE}", f"~root/{HOME_PROBE}"
    if form == "nul":
        return "secret\x00.txt", "secret\\x00.txt"
    if form == "symlink":
        (workspace / "link.txt").symlink_to(outside / "secret.txt")
        return "link.txt", "link.txt"
    if form == "dangling-symlink":
        (workspace / "dangling.txt").symlink_to(outside / "created.txt")
        return "dangling.txt", "dangling.txt"
    if form == "symlinked-parent":
        (workspace / "dir").symlink_to(outside)
        return "dir/secret.txt", "dir/secret.txt"
    if form == "symlinked-parent-new-file":
        (workspace / "dir").symlink_to(outside)
        return "dir/sub/created.txt", "dir/sub/created.txt"
    raise AssertionError(form)


FORMS = [
    "dotdot",
    "nested-dotdot",
    "absolute",
    "tilde",
    "tilde-user",
    "nul",
    "symlink",
    "dangling-symlink",
    "symlinked-parent",
    "symlinked-parent-new-file",
]
TOOLS: dict[str, dict[str, Any]] = {
    "read": {},
    "write": {"content": "pwned\n"},
    "edit": {"oldText": "top secret", "newText": "pwned"},
}


@pytest.fixture
def own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's own, empty HOME: an escape through `~` would land here, not in the real user's."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.mark.parametrize("tool", list(TOOLS))
@pytest.mark.parametrize("form", FORMS)
async def test_escape_is_refused_and_nothing_outside_changes(
    call: CallTool, workspace: Path, outside: Path, own_home: Path, tool: str, form: str
) -> None:
    path, shown = _arrange(form, workspace, outside)
    before = snapshot(outside)
    workspace_before = snapshot(workspace)

    result = await call(tool, path=path, **TOOLS[tool])

    assert result.is_error
    assert result.text == f"path escapes workspace: {shown}"
    assert "top secret" not in result.text
    assert snapshot(outside) == before
    assert snapshot(workspace) == workspace_before
    assert not (own_home / HOME_PROBE).exists()
    assert not (outside / "created.txt").exists()


async def test_read_of_etc_passwd_is_refused(call: CallTool) -> None:
    result = await call("read", path="/etc/passwd")
    assert result.is_error and result.text == "path escapes workspace: /etc/passwd"


async def test_in_workspace_symlink_is_followed_to_its_target(call: CallTool, workspace: Path) -> None:
    (workspace / "real.txt").write_text("one\n")
    (workspace / "alias.txt").symlink_to("real.txt")
    result = await call("write", path="alias.txt", content="two\n")
    assert not result.is_error
    assert (workspace / "alias.txt").is_symlink()
    assert (workspace / "real.txt").read_text() == "two\n"
    assert (await call("read", path="alias.txt")).text == "two\n"
