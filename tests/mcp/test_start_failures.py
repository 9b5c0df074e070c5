"""A server that fails to start is reported with its own words and the fix, once per command."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

from tests.gateway.conftest import write_config
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw
from tests.tools.sandbox_support import require_bwrap


def _server_reading(claw_env: ClawEnv, tmp_path: Path) -> Path:
    """A stdio server (a script in a folder of its own) that first reads a file in claw's state dir, which
    its sandbox hides: it dies with Python's FileNotFoundError naming that file."""
    secret = claw_env.home / "server-data.json"
    secret.write_text("{}")
    script = tmp_path / "scripts" / "reader.py"
    script.parent.mkdir()
    script.write_text(f"import sys\nprint('starting', file=sys.stderr)\nopen({str(secret)!r})\n")
    write_config(
        claw_env.home,
        f'[mcp.servers.reader]\ncommand = "{sys.executable}"\nargs = ["{script}"]\nsandbox = true\n',
    )
    return secret


def test_mcp_test_says_why_with_stderr_the_fix_and_what_the_server_sees(claw_env: ClawEnv, tmp_path: Path) -> None:
    require_bwrap()
    secret = _server_reading(claw_env, tmp_path)
    result = run_claw(claw_env.env, "mcp", "test", "reader")
    assert result.returncode == 1, result
    output = result.stdout + result.stderr
    assert "Connection closed" not in output
    assert "FileNotFoundError" in output and "its stderr ends" in output, output
    assert f"claw config set mcp.servers.reader.binds '[\"{secret}\"]'" in output, output
    assert output.count("FileNotFoundError") == 1, output
    assert f"read-only: {tmp_path / 'scripts'}" in output and f"hidden (empty): {claw_env.home}" in output, output

    log = claw_env.home / "logs" / "mcp-reader.log"
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert "starting" in log.read_text()


def test_a_one_shot_turn_says_a_failing_server_once(claw_env: ClawEnv, tmp_path: Path) -> None:
    require_bwrap()
    _server_reading(claw_env, tmp_path)
    from tests.support.model_server import text

    claw_env.server.script(text("hello"))
    result = run_claw(claw_env.env, "agent", "-m", "hi")
    assert result.returncode == 0, result
    assert "hello" in result.stdout
    assert result.stderr.count("MCP server reader") <= 1, result.stderr
