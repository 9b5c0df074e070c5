"""Stdio servers under bubblewrap: their tools work, but they write only where the sandbox lets them."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from claw.mcp.capability import McpCapability
from tests.gateway.conftest import collect, write_config
from tests.mcp.conftest import SERVERS, stdio_server
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.support.processes import run_claw
from tests.support.waiting import deadline
from tests.tools.sandbox_support import require_bwrap, running_with_arg


@pytest.fixture
def home_dir() -> Iterator[Path]:
    """A folder in the real home (which a sandboxed server must not see, let alone write to)."""
    folder = Path.home() / f".claw-mcp-sandbox-test-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


async def test_a_sandboxed_server_works_but_cannot_write_outside(
    claw_env: ClawEnv, local_clients, tmp_path: Path, home_dir: Path
) -> None:
    require_bwrap()
    workspace = claw_env.home / "workspace"
    workspace.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    write_config(claw_env.home, stdio_server("basic", sandbox=True))
    client = local_clients()
    targets = [workspace / "inside.txt", outside / "escape.txt", home_dir / "escape.txt"]
    claw_env.server.script(
        tool_call("basic__echo", {"text": "hi"}),
        *(tool_call("basic__write_file", {"path": str(t), "text": "x"}) for t in targets),
        text("done"),
    )
    events = await collect(client, (await client.run("try the files")).run_id)
    results = [e.data for e in events if e.stream == "tool" and e.data["phase"] == "result"]
    assert [r["isError"] for r in results] == [False, False, True, True], results
    assert "echo: hi" in results[0]["result"]
    assert (workspace / "inside.txt").read_text() == "x"
    assert not (outside / "escape.txt").exists() and not (home_dir / "escape.txt").exists()
    assert "No such file or directory" in results[2]["result"]

    manager = client.gateway.capability(McpCapability).manager
    assert manager.connections["basic"].status.sandbox == "bwrap"


def test_mcp_ls_says_how_each_server_runs(claw_env: ClawEnv) -> None:
    require_bwrap()
    write_config(claw_env.home, stdio_server("boxed", sandbox=None) + stdio_server("plain"))
    rows = json.loads(run_claw(claw_env.env, "mcp", "ls", "--json").stdout)
    assert {r["name"]: r["sandbox"] for r in rows} == {"boxed": "bwrap", "plain": "off (sandbox = false)"}


def test_without_bwrap_a_default_server_runs_as_is_and_an_explicit_one_refuses(claw_env: ClawEnv) -> None:
    config = stdio_server("default", sandbox=None) + stdio_server("strict", sandbox=True)
    write_config(claw_env.home, config)
    env = {**claw_env.env, "CLAW_BWRAP": str(claw_env.home / "no-bwrap")}
    rows = json.loads(run_claw(env, "mcp", "ls", "--json").stdout)
    shown = {r["name"]: r["sandbox"] for r in rows}
    assert shown["default"].startswith("off: CLAW_BWRAP=") and shown["default"].endswith("is not an executable file")
    assert shown["strict"].startswith("refused: ")

    ran = json.loads(run_claw(env, "mcp", "test", "default", "--json").stdout)
    assert ran["state"] == "up" and "write_file" in ran["tools"]
    refused = run_claw(env, "mcp", "test", "strict", "--json")
    report = json.loads(refused.stdout)
    assert refused.returncode != 0 and report["state"] == "down"
    assert "mcp.servers.strict.sandbox = true" in report["error"] and "sandbox false" in report["error"]

    doctor = run_claw(env, "doctor", "--json")
    mcp = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "mcp"]
    said = json.dumps(mcp)
    assert "default: runs unsandboxed" in said and "strict: does not start" in said, said
    assert "install bubblewrap" in said  # with the fix


async def test_a_sandboxed_server_ends_with_the_gateway(claw_env: ClawEnv, local_clients) -> None:
    """Inside its PID namespace the server's pid means nothing out here: it is found by a unique argument."""
    require_bwrap()
    marker = f"marker-{uuid.uuid4().hex}"
    write_config(claw_env.home, stdio_server("basic", sandbox=True, args=[str(SERVERS), "basic", marker]))
    client = local_clients()
    manager = client.gateway.capability(McpCapability).manager
    await manager.ensure_started()
    assert manager.connections["basic"].status.state == "up"
    assert running_with_arg(marker), "the server runs, with its marker, as a host process"
    await client.close()
    async with deadline(10, "the sandboxed server to end"):
        while running_with_arg(marker):
            await asyncio.sleep(0.05)


def test_what_a_sandboxed_server_is_shown(tmp_path: Path) -> None:
    """Directory arguments writable (a server's roots), a script's folder and the install prefix read-only,
    `/` and system paths never made writable, the network on."""
    from claw.mcp.sandboxing import AgentSandbox, SandboxContext, server_spec
    from claw.settings.mcp import McpServerSettings

    workspace, notes, state = tmp_path / "ws", tmp_path / "notes", tmp_path / "state"
    for folder in (workspace, notes, state):
        folder.mkdir()
    context = SandboxContext({"main": AgentSandbox(True, workspace, ())}, (state,))
    settings = McpServerSettings(command=sys.executable, args=(str(SERVERS), str(notes), "/", "/usr", "basic"))
    spec = server_spec(settings, context, shutil.which(sys.executable) or sys.executable)
    assert spec.workspace == workspace and spec.network and spec.hidden == (state,)
    assert [(b.source, b.writable) for b in spec.binds] == [(str(notes), True)]
    assert SERVERS.parent in spec.read_only
    assert Path(sys.prefix) in spec.read_only  # the virtualenv the command belongs to
