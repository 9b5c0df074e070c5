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


def test_mcp_test_names_a_refused_write_and_the_bind_that_allows_it(claw_env: ClawEnv, tmp_path: Path) -> None:
    # A server that keeps its state beside itself: the sandbox shows its script's folder read-only, so its
    # first write fails (Python: "Read-only file system: '…/state.json'"). The fix printed is the fix.
    require_bwrap()
    script = tmp_path / "scripts" / "writer.py"
    script.parent.mkdir()
    script.write_text(
        "from pathlib import Path\n"
        "Path(__file__).with_name('state.json').write_text('{}')\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "MCPServer('writer').run('stdio')\n"
    )
    write_config(claw_env.home, f'[mcp.servers.writer]\ncommand = "{sys.executable}"\nargs = ["{script}"]\n')
    result = run_claw(claw_env.env, "mcp", "test", "writer")
    output = result.stdout + result.stderr
    assert result.returncode == 1 and "Read-only file system" in output, output
    state, folder = script.parent / "state.json", script.parent
    assert f"the sandbox refused the write to {state}: it shows {folder} read-only" in output, output
    fix = f"claw config set mcp.servers.writer.binds '[\"{folder}:rw\"]'"
    assert fix in output, output

    done = run_claw(claw_env.env, "config", "set", "mcp.servers.writer.binds", f'["{folder}:rw"]')
    assert done.returncode == 0, done.stderr
    result = run_claw(claw_env.env, "mcp", "test", "writer")
    assert result.returncode == 0, result.stdout + result.stderr
    assert state.read_text() == "{}"


def test_a_write_refused_in_a_tool_call_comes_with_the_bind_that_allows_it(claw_env: ClawEnv, tmp_path: Path) -> None:
    # The server starts, and writes only when a tool is called: the model reads the server's error and, after
    # it, claw's note naming the path and the setting.
    require_bwrap()
    from tests.support.model_server import text, tool_call

    script = tmp_path / "scripts" / "notes.py"
    script.parent.mkdir()
    script.write_text(
        "from pathlib import Path\n"
        "from mcp.server.mcpserver import MCPServer\n"
        "from mcp.server.mcpserver.exceptions import ToolError\n"
        "server = MCPServer('notes')\n"
        "@server.tool(description='Keep a note.')\n"
        "def keep(note: str) -> str:\n"
        "    try:\n"
        "        Path(__file__).with_name('notes.txt').write_text(note)\n"
        "    except OSError as exc:  # said to the client, as servers such as server-memory do\n"
        "        raise ToolError(str(exc)) from exc\n"
        "    return 'kept'\n"
        "server.run('stdio')\n"
    )
    write_config(claw_env.home, f'[mcp.servers.notes]\ncommand = "{sys.executable}"\nargs = ["{script}"]\n')
    assert run_claw(claw_env.env, "mcp", "test", "notes").returncode == 0  # it starts; its tools are listed
    claw_env.server.script(tool_call("notes__keep", {"note": "buy milk"}), text("done"))
    result = run_claw(claw_env.env, "agent", "-m", "keep a note")
    assert result.returncode == 0, result.stderr
    seen = claw_env.server.chat_requests[1].body["messages"][-1]["content"]
    folder = script.parent
    assert "Read-only file system" in seen, seen
    assert f"(claw: the sandbox refused the write to {folder / 'notes.txt'}: it shows {folder} read-only" in seen
    assert f"claw config set mcp.servers.notes.binds '[\"{folder}:rw\"]'" in seen, seen
