"""The exec tool under a real bubblewrap sandbox: escape attempts fail, ordinary commands still work.

Each test runs real commands through the registry, as the agent loop does, in the owner's main session
(sandboxed by default). Each escape attempt asserts both halves: what was tried did not reach the host,
and the ordinary part of the same command did its work.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from claw.paths import Paths
from claw.tools.base import ToolContext
from claw.tools.exec import ExecTool
from claw.tools.exec_env import command_env
from claw.tools.exec_records import MARKER_NAME
from claw.tools.registry import ToolRegistry
from tests.tools.conftest import CallTool, MakeCtx
from tests.tools.helpers import snapshot
from tests.tools.sandbox_support import bwrap  # noqa: F401 - the fixture

pytestmark = pytest.mark.usefixtures("bwrap")  # the unsandboxed case too: one place to skip

TOKEN = "gw-token-sandbox-0001"
CONFIG_SECRET = "config-secret-0002"
TRANSCRIPT_SECRET = "transcript-secret-0003"
HOME_SECRET = "home-secret-0004"


@pytest.fixture
def full(make_ctx: MakeCtx) -> ToolContext:
    return make_ctx(exec={"security": "full", "ask": "off"})


@pytest.fixture
def claw_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A claw state dir with the secrets a command must not read; CLAW_HOME points at it."""
    home = tmp_path / "claw-home"
    sessions = home / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (home / "gateway.token").write_text(TOKEN + "\n")
    (home / "config.toml").write_text(f'[providers.x]\napiKey = "{CONFIG_SECRET}"\n')
    (sessions / "s1.jsonl").write_text(f'{{"role": "user", "content": "{TRANSCRIPT_SECRET}"}}\n')
    (home / "gateway.db").write_bytes(b"SQLite format 3\x00" + TRANSCRIPT_SECRET.encode())
    monkeypatch.setenv("CLAW_HOME", str(home))
    return home


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """$HOME, with a file of the user's in it."""
    home = tmp_path / "user-home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_test").write_text(HOME_SECRET + "\n")
    monkeypatch.setenv("HOME", str(home))
    return home


async def test_an_ordinary_command_works_in_the_workspace(call: CallTool, full: ToolContext, workspace: Path) -> None:
    result = await call("exec", command="echo hi > made.txt; cat made.txt; pwd; cat /proc/1/comm", context=full)
    assert not result.is_error, result.text
    out = result.text.splitlines()
    assert out[:2] == ["hi", await asyncio.to_thread(os.path.realpath, workspace)]
    assert out[2] == "bwrap"  # the PID namespace's init: the command did run sandboxed
    assert (workspace / "made.txt").read_text() == "hi\n"


@pytest.fixture
def system_targets() -> Iterator[list[str]]:
    """Unique paths in system places a write must not reach; removed afterwards if the sandbox failed."""
    name = f"claw-sandbox-test-{uuid.uuid4().hex[:8]}"
    targets = [f"/usr/{name}", f"/etc/{name}", f"/{name}"]
    yield targets
    for path in targets:
        if os.path.isdir(path):
            shutil.rmtree(path)
        elif os.path.lexists(path):
            os.unlink(path)


async def test_writes_outside_the_workspace_never_reach_the_host(
    call: CallTool, full: ToolContext, workspace: Path, outside: Path, system_targets: list[str]
) -> None:
    (workspace / "link").symlink_to(outside)  # a link in the workspace to a directory outside it
    before = snapshot(outside)
    usr, etc, root = system_targets
    attempts = [
        f"echo x > {outside}/direct",
        f"mkdir -p {outside} && echo x > {outside}/made-dir",  # succeeds, in the private /tmp only
        "echo x > link/through-link",
        f"touch {usr}",
        f"touch {etc}",
        f"mkdir {root} && touch {root}/x",
    ]
    command = "; ".join(f"({a}) 2>/dev/null" for a in attempts) + "; echo inside > inside.txt; echo done"
    result = await call("exec", command=command, context=full)

    assert result.text.startswith("done"), result.text
    assert snapshot(outside) == before
    for path in system_targets:
        assert not await asyncio.to_thread(os.path.lexists, path), path
    assert (workspace / "inside.txt").read_text() == "inside\n"


async def test_the_state_dir_and_the_home_are_hidden(
    call: CallTool, make_ctx: MakeCtx, tmp_path: Path, claw_home: Path, user_home: Path
) -> None:
    workspace = claw_home / "workspace"  # the default layout: the workspace inside the state dir
    workspace.mkdir()
    (workspace / "notes.md").write_text("my notes\n")
    # Binding their common parent shows both, but for the masks: what is hidden is hidden by them, not
    # merely by the private /tmp they happen to be under here.
    ctx = make_ctx(exec={"security": "full", "ask": "off"}, sandbox={"binds": [f"{tmp_path}:ro"]})
    ctx = replace(ctx, workspace=workspace)
    reads = [
        f"cat {claw_home}/gateway.token",
        f"cat {claw_home}/config.toml",
        f"cat {claw_home}/gateway.db",
        f"cat {claw_home}/agents/main/sessions/*.jsonl",
        "cat ../gateway.token",
        f"cat {user_home}/.ssh/id_test",
        "cat ~/.ssh/id_test",
    ]
    command = "; ".join(f"{r} 2>&1" for r in reads) + f"; ls -A {claw_home}; echo --; ls -A {user_home}; cat notes.md"
    result = await call("exec", command=command, context=ctx)

    for secret in (TOKEN, CONFIG_SECRET, TRANSCRIPT_SECRET, HOME_SECRET):
        assert secret not in result.text
    listing = result.text.split("\n\n")[0].splitlines()[len(reads) :]
    assert listing == ["workspace", "--", "my notes"]  # the state dir holds only the workspace; the home nothing


async def test_a_state_dir_inside_the_workspace_stays_hidden(
    call: CallTool, full: ToolContext, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = workspace / ".claw"
    state.mkdir()
    (state / "gateway.token").write_text(TOKEN)
    (workspace / "readme.txt").write_text("visible\n")
    monkeypatch.setenv("CLAW_HOME", str(state))
    result = await call("exec", command="cat .claw/gateway.token; ls -A .claw; cat readme.txt", context=full)
    assert TOKEN not in result.text
    assert result.text.startswith("cat: .claw/gateway.token: No such file or directory\nvisible\n"), result.text


async def test_a_workspace_inside_the_home_works_while_the_rest_of_the_home_is_hidden(
    call: CallTool, full: ToolContext, user_home: Path
) -> None:
    workspace = user_home / "project"
    workspace.mkdir()
    ctx = replace(full, workspace=workspace)
    result = await call("exec", command="echo built > out.txt; ls -A ..; cat ../.ssh/id_test 2>&1", context=ctx)
    assert (workspace / "out.txt").read_text() == "built\n"
    assert HOME_SECRET not in result.text
    assert result.text.startswith("project\ncat: ../.ssh/id_test: No such file or directory"), result.text


async def test_the_gateway_paths_given_to_exec_are_the_ones_hidden(
    make_ctx: MakeCtx, tmp_path: Path, workspace: Path
) -> None:
    state = tmp_path / "elsewhere"  # not under /tmp's private tmpfs alone: given explicitly, not by CLAW_HOME
    state.mkdir()
    (state / "gateway.token").write_text(TOKEN)
    registry = ToolRegistry([ExecTool(Paths(state, state))])
    ctx = make_ctx(exec={"security": "full", "ask": "off"}, sandbox={"binds": [f"{tmp_path}:ro"]})
    result = await registry.call("exec", f'{{"command": "cat {state}/gateway.token; ls {tmp_path}"}}', ctx)
    assert TOKEN not in result.text  # the bind of its parent shows the folder, but the folder is masked
    assert "elsewhere" in result.text and "workspace" in result.text


async def test_the_host_loopback_is_out_of_reach_unless_the_network_is_allowed(
    call: CallTool, make_ctx: MakeCtx
) -> None:
    connections = 0

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        writer.close()

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    probe = f"bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' 2>/dev/null && echo connected || echo refused; echo ok"
    try:
        closed = await call("exec", command=probe, context=make_ctx(exec={"security": "full", "ask": "off"}))
        assert closed.text.startswith("refused\nok"), closed.text
        assert connections == 0

        allowed = make_ctx(exec={"security": "full", "ask": "off"}, sandbox={"network": True})
        opened = await call("exec", command=probe, context=allowed)
        assert opened.text.startswith("connected\nok"), opened.text
        assert connections == 1
    finally:
        server.close()
        await server.wait_closed()


async def test_host_processes_and_root_powers_are_out_of_reach(call: CallTool, full: ToolContext) -> None:
    me = os.getpid()
    command = (
        f"cat /proc/{me}/cmdline 2>&1; "
        "mount -t tmpfs none /mnt 2>/dev/null && echo mounted; "
        "grep CapEff /proc/self/status; "
        "ls /proc | grep -c '^[0-9]'"
    )
    result = await call("exec", command=command, context=full)
    assert "pytest" not in result.text
    assert "mounted" not in result.text
    assert "CapEff:\t0000000000000000" in result.text
    processes = int(result.text.split("\n\n")[0].splitlines()[-1])
    assert processes < 10  # bwrap's init, the shell and its pipeline: nothing of the host


async def test_a_symlinked_workspace_is_reachable_by_both_of_its_names(
    call: CallTool, full: ToolContext, workspace: Path, tmp_path: Path
) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(workspace)
    (workspace / "inner").mkdir()
    (workspace / "to-inner").symlink_to("inner")  # a link that stays inside the workspace
    ctx = replace(full, workspace=alias)
    command = f"pwd; echo a > to-inner/a.txt; cat {alias}/inner/a.txt; echo b > {alias}/b.txt"
    result = await call("exec", command=command, context=ctx)
    assert not result.is_error, result.text
    assert result.text.splitlines()[:2] == [await asyncio.to_thread(os.path.realpath, workspace), "a"]
    assert (workspace / "b.txt").read_text() == "b\n"


async def test_binds_and_skill_roots_are_shown_read_only_unless_rw(
    call: CallTool, make_ctx: MakeCtx, tmp_path: Path
) -> None:
    shared, scratch, skills = tmp_path / "shared", tmp_path / "scratch", tmp_path / "skills"
    for folder in (shared, scratch, skills):
        folder.mkdir()
    (shared / "data.txt").write_text("shared data\n")
    (skills / "run.sh").write_text("echo skill ran\n")
    binds = [f"{shared}:ro", f"{scratch}:/mnt/scratch:rw", "/nonexistent-claw-test"]  # a missing one is skipped
    ctx = make_ctx(exec={"security": "full", "ask": "off"}, sandbox={"binds": binds}, read_roots=(skills,))
    command = (
        f"cat {shared}/data.txt; (touch {shared}/w) 2>/dev/null || echo shared-ro; "
        f"sh {skills}/run.sh; (touch {skills}/w) 2>/dev/null || echo skills-ro; "
        "echo s > /mnt/scratch/s.txt && echo scratch-rw"
    )
    result = await call("exec", command=command, context=ctx)
    assert result.text.splitlines()[:5] == ["shared data", "shared-ro", "skill ran", "skills-ro", "scratch-rw"]
    assert not (shared / "w").exists() and not (skills / "w").exists()
    assert (scratch / "s.txt").read_text() == "s\n"


@pytest.mark.parametrize("mode", ["all", "off"], ids=["sandboxed", "unsandboxed"])
async def test_the_environment_is_the_one_exec_built(
    call: CallTool, make_ctx: MakeCtx, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """Neither bwrap nor the reaper's Python (which adds LC_CTYPE to its own, PEP 538) changes it."""
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CLAW_TEST_VISIBLE", "plain-value-0010")
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "scrubbed-0011")
    ctx = make_ctx(exec={"security": "full", "ask": "off", "passEnv": ["CLAW_TEST_*"]}, sandbox={"mode": mode})
    result = await call("exec", command="env -0; printf '\\n'", context=ctx)
    seen = dict(line.split("=", 1) for line in result.text.split("\n\nexit code")[0].rstrip("\n").split("\0") if line)
    expected = command_env(["CLAW_TEST_*"])
    seen.pop("PWD", None), expected.pop("PWD", None)  # the shell sets its own
    assert len(seen.pop(MARKER_NAME)) == 32  # the run's marker (claw/tools/exec_records.py)
    assert seen == expected
    assert seen["CLAW_TEST_VISIBLE"] == "plain-value-0010" and "SOME_SERVICE_TOKEN" not in seen


async def test_for_a_root_gateway_what_only_root_may_read_in_etc_stays_unread(
    call: CallTool, full: ToolContext
) -> None:
    shadow = Path("/etc/shadow")
    if os.geteuid() != 0 or not await asyncio.to_thread(shadow.exists):
        pytest.skip("needs a gateway running as root on a system with /etc/shadow")
    result = await call("exec", command="cat /etc/shadow; head -1 /etc/passwd", context=full)
    assert "cat: /etc/shadow: Permission denied" in result.text
    assert "root:x:" in result.text  # what everyone may read still reads
    first = (await asyncio.to_thread(shadow.read_text)).splitlines()[0]
    assert first not in result.text
