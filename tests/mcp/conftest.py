"""MCP test helpers: config.toml entries for the servers in tests/mcp/servers.py, and process checks."""

from __future__ import annotations

import os
import sys
from pathlib import Path

SERVERS = Path(__file__).with_name("servers.py")


def stdio_server(name: str, mode: str = "basic", **extra: object) -> str:
    """A `[mcp.servers.<name>]` table running tests/mcp/servers.py MODE over stdio.

    Unsandboxed unless `sandbox=True` is given: these tests follow the server's host pid and process group
    and hand it note files under /tmp, none of which a sandboxed server shares (tests/mcp/test_sandbox.py
    covers the sandboxed start)."""
    import tomlkit

    table = {"command": sys.executable, "args": [str(SERVERS), mode], "sandbox": False, **extra}
    table = {key: value for key, value in table.items() if value is not None}  # sandbox=None: leave it unset
    return tomlkit.dumps({"mcp": {"servers": {name: table}}})


def group_alive(pgid: int) -> bool:
    """Whether any process (a zombie not yet reaped counts) is left in process group `pgid`."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def pids(path: Path) -> list[tuple[int, int]]:
    if not path.exists():
        return []
    return [tuple(map(int, line.split())) for line in path.read_text().splitlines() if line.strip()]  # type: ignore[misc]
