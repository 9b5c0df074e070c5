"""The reference MCP servers, installed (pinned, cached) by scripts/install-mcp-servers.sh; a test skips only
when npm is absent, and with CI set fails instead (tests/support/unavailable.py): CI must run them."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.support.processes import REPO, run_claw
from tests.support.unavailable import unavailable


@dataclass(frozen=True)
class Installed:
    venv_bin: Path
    """mcp-server-time and mcp-server-git are here."""
    env: dict[str, str]
    """For claw (and through it the servers): npm's cache holding the npm servers, and uv's holding
    mcp-server-time, both offline."""
    time_version: str
    """The version of mcp-server-time in uv's cache (`uvx mcp-server-time@VERSION`)."""


@pytest.fixture(scope="session")
def installed() -> Installed:
    if shutil.which("npm") is None:
        unavailable("npm is absent: scripts/install-mcp-servers.sh cannot install the reference MCP servers")
    done = subprocess.run(["bash", str(REPO / "scripts" / "install-mcp-servers.sh")], capture_output=True,
                          text=True, timeout=1200)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    exports = dict(line.removeprefix("export ").split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    cache = Path(exports["CLAW_MCP"])
    # npx finds the servers in this cache, and must not go online for them (nothing downloads at run time)
    env = {"npm_config_cache": exports["npm_config_cache"], "npm_config_offline": "true",
           "UV_CACHE_DIR": exports["UV_CACHE_DIR"], "UV_OFFLINE": "1"}  # fmt: skip
    return Installed(cache / "venv" / "bin", env, exports["MCP_SERVER_TIME_VERSION"])


def claw_env_with(claw_env: ClawEnv, installed: Installed) -> dict[str, str]:
    return {**claw_env.env, **installed.env}


def add(env: dict[str, str], name: str, *command: str) -> None:
    done = run_claw(env, "mcp", "add", name, "--", *command)
    assert done.returncode == 0, done.stderr


def started(env: dict[str, str], name: str) -> list[str]:
    """`claw mcp test NAME` (as `claw mcp add` suggests): the server starts under the default sandbox."""
    done = run_claw(env, "mcp", "test", name, "--json", timeout=120)
    report = json.loads(done.stdout or "{}")
    assert report.get("state") == "up", f"{name} did not start: {report.get('error')} {done.stderr[-1500:]}"
    rows = json.loads(run_claw(env, "mcp", "ls", "--json").stdout)
    assert [r["sandbox"] for r in rows if r["name"] == name] == ["bwrap"], rows
    return report["tools"]


def tool_in_a_turn(claw_env: ClawEnv, env: dict[str, str], name: str, tool: str, args: dict) -> str:
    """The scripted model calls `name__tool` in a one-shot turn; the tool's result as the next request has it."""
    claw_env.server.script(tool_call(f"{name}__{tool}", args), text("done"))
    before = len(claw_env.server.chat_requests)
    done = run_claw(env, "agent", "-m", f"use {name}", timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    requests = claw_env.server.chat_requests[before:]
    assert len(requests) == 2, requests
    last = requests[1].body["messages"][-1]
    assert last["role"] == "tool", last
    return json.dumps(last["content"]) if not isinstance(last["content"], str) else last["content"]


PYTHON = sys.executable
