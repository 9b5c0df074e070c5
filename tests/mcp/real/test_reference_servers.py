"""The reference MCP servers, each added exactly as its README says, started under the default sandbox
(bwrap), one of its tools called by the scripted model in a one-shot turn, the result in the next request.

The npm servers run through `npx -y`, which finds them in the npm cache scripts/install-mcp-servers.sh
filled (claw passes `npm_config_cache` on, and the sandbox shows that cache read-write); the PyPI ones from
the virtualenv it made, whose Python links into the interpreter it was made from (pyenv's, under the
home the sandbox hides, on many machines).
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from tests.mcp.real.conftest import Installed, add, claw_env_with, started, tool_in_a_turn
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw
from tests.tools.sandbox_support import require_bwrap


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    require_bwrap()


def test_server_filesystem(claw_env: ClawEnv, installed: Installed, tmp_path: Path) -> None:
    env = claw_env_with(claw_env, installed)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "todo.txt").write_text("buy oat milk\n")
    add(env, "files", "npx", "-y", "@modelcontextprotocol/server-filesystem", str(notes))
    assert "read_text_file" in started(env, "files")
    result = tool_in_a_turn(claw_env, env, "files", "read_text_file", {"path": str(notes / "todo.txt")})
    assert "buy oat milk" in result
    result = tool_in_a_turn(claw_env, env, "files", "write_file", {"path": str(notes / "new.txt"), "content": "x"})
    assert (notes / "new.txt").read_text() == "x", result  # its root is writable


def test_server_memory(claw_env: ClawEnv, installed: Installed) -> None:
    env = claw_env_with(claw_env, installed)
    add(env, "memory", "npx", "-y", "@modelcontextprotocol/server-memory")
    assert "create_entities" in started(env, "memory")
    # its default file sits in its package folder, in the npm cache, kept between runs: a name of this run's
    name = f"claw-{uuid.uuid4().hex[:8]}"
    entity = {"name": name, "entityType": "program", "observations": ["talks MCP"]}
    result = tool_in_a_turn(claw_env, env, "memory", "create_entities", {"entities": [entity]})
    assert name in result and "rror" not in result, result  # it could write its default file
    none = run_claw(env, "mcp", "prompts", "memory")
    assert none.returncode == 0 and none.stdout.strip() == "memory offers no prompts.", none


def test_server_everything_over_stdio(claw_env: ClawEnv, installed: Installed) -> None:
    env = claw_env_with(claw_env, installed)
    add(env, "everything", "npx", "-y", "@modelcontextprotocol/server-everything")
    assert "echo" in started(env, "everything")
    assert "Echo: hello there" in tool_in_a_turn(claw_env, env, "everything", "echo", {"message": "hello there"})


def test_server_everything_over_streamable_http(claw_env: ClawEnv, installed: Installed) -> None:
    env = claw_env_with(claw_env, installed)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen(
        ["npx", "-y", "@modelcontextprotocol/server-everything", "streamableHttp"],
        env={**env, "PORT": str(port)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    try:
        _wait_for_port(port, server)
        done = run_claw(env, "mcp", "add", "web", "--url", f"http://127.0.0.1:{port}/mcp")
        assert done.returncode == 0, done.stderr
        assert "get-sum" in json.loads(run_claw(env, "mcp", "test", "web", "--json", timeout=120).stdout)["tools"]
        assert "7" in tool_in_a_turn(claw_env, env, "web", "get-sum", {"a": 3, "b": 4})
    finally:
        server.terminate()
        server.wait(10)
        server.stderr.close()  # type: ignore[union-attr]


def test_mcp_server_time(claw_env: ClawEnv, installed: Installed) -> None:
    env = claw_env_with(claw_env, installed)
    add(env, "time", str(installed.venv_bin / "mcp-server-time"))
    assert "get_current_time" in started(env, "time")
    result = tool_in_a_turn(claw_env, env, "time", "get_current_time", {"timezone": "Europe/Paris"})
    assert "Europe/Paris" in result and "datetime" in result, result
    assert run_claw(env, "mcp", "resources", "time").returncode == 0


def test_mcp_server_time_through_uvx(claw_env: ClawEnv, installed: Installed) -> None:
    # As its README says (`uvx mcp-server-time`, pinned here), with uvx on the PATH: uv's cache is shown
    # read-write, and the Python its tool environment was made from (pyenv's, under the hidden home) read-only.
    env = {**claw_env_with(claw_env, installed), "PATH": f"{installed.venv_bin}:{claw_env.env['PATH']}"}
    add(env, "time", "uvx", f"mcp-server-time@{installed.time_version}")
    assert "get_current_time" in started(env, "time")
    result = tool_in_a_turn(claw_env, env, "time", "get_current_time", {"timezone": "Asia/Tokyo"})
    assert "Asia/Tokyo" in result and "datetime" in result, result


def test_mcp_server_git(claw_env: ClawEnv, installed: Installed, tmp_path: Path) -> None:
    env = claw_env_with(claw_env, installed)
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "hello.txt").write_text("hi\n")
    add(env, "git", str(installed.venv_bin / "mcp-server-git"), "--repository", str(repo))
    assert "git_status" in started(env, "git")
    assert "hello.txt" in tool_in_a_turn(claw_env, env, "git", "git_status", {"repo_path": str(repo)})


def test_a_claude_desktop_file_imports_and_its_servers_start(
    claw_env: ClawEnv, installed: Installed, tmp_path: Path
) -> None:
    env = claw_env_with(claw_env, installed)
    desktop = tmp_path / "claude_desktop_config.json"
    desktop.write_text(json.dumps({"mcpServers": {
        "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]},
        "time": {"command": str(installed.venv_bin / "mcp-server-time"), "args": ["--local-timezone", "UTC"]},
    }}))  # fmt: skip
    done = run_claw(env, "mcp", "import", str(desktop))
    assert done.returncode == 0 and "Imported 2 MCP server(s): memory, time" in done.stdout, done
    assert "read_graph" in started(env, "memory")
    assert "convert_time" in started(env, "time")


def _wait_for_port(port: int, server: subprocess.Popen, timeout: float = 90) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if server.poll() is not None:
            raise AssertionError(f"server-everything exited: {server.stderr.read().decode()[-1000:]}")  # type: ignore[union-attr]
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise AssertionError(f"server-everything did not listen on {port} within {timeout} s")
