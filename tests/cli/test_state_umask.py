"""The red team's partial: under umask 022, `logs/`, `logs/mcp-*.log` and the memory index's WAL and SHM
came out 0755/0644, and `claw doctor` then complained about claw's own files. Real `claw` processes under
umask 022 now leave nothing in the state dir that others can read, and the doctor's state check is clean;
what a command the agent runs creates still follows the user's umask."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

from tests.mcp.conftest import SERVERS
from tests.support.fixtures import ClawEnv
from tests.support.model_server import text, tool_call
from tests.support.processes import REPO

USER_UMASK = 0o022


def claw(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "claw", *args],
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        umask=USER_UMASK,
    )
    assert done.returncode == 0, (args, done.stdout, done.stderr)
    return done


def test_what_claw_creates_is_private_under_umask_022(claw_env: ClawEnv) -> None:
    env = claw_env.env
    claw(env, "init")
    config = claw_env.home / "config.toml"
    config.write_text(
        config.read_text() + '\n[agents.defaults.tools.exec]\nsecurity = "full"\nask = "off"\n'
        '[agents.defaults.sandbox]\nmode = "off"\n'
    )
    claw(env, "mcp", "add", "basic", "--", sys.executable, str(SERVERS), "basic")
    claw(env, "mcp", "test", "basic")
    workspace = claw_env.home / "workspace"
    (workspace / "memory").mkdir(exist_ok=True)
    (workspace / "memory" / "notes.md").write_text("# Notes\n\nThe umask probe remembers this.\n")
    claw(env, "memory", "index")
    claw_env.server.script(tool_call("exec", {"command": "echo made > by-command.txt"}), text("done"))
    claw(env, "agent", "-m", "make a file")

    shared = _shared(claw_env.home)
    assert shared == [], shared
    assert (claw_env.home / "logs" / "mcp-basic.log").exists()
    assert list((claw_env.home / "memory").glob("*.sqlite*")), "the memory index was not written"
    # The agent's command ran with the user's umask, not claw's own.
    assert stat.S_IMODE((workspace / "by-command.txt").stat().st_mode) == 0o644

    report = json.loads(claw(env, "doctor", "--json").stdout)
    home = next(check for check in report["checks"] if check["name"] in ("claw home", "state dirs"))
    assert home["status"] == "ok", home


def _shared(home: Path) -> list[str]:
    """Files and folders of the state (not the user's workspace) that group or others can open."""
    found = []
    for folder, dirs, files in os.walk(home):
        dirs[:] = [d for d in dirs if not (Path(folder) == home and d.startswith("workspace"))]
        for name in [*dirs, *files]:
            path = Path(folder) / name
            mode = path.lstat().st_mode
            if not stat.S_ISLNK(mode) and mode & 0o077:
                found.append(f"{path.relative_to(home)} {stat.S_IMODE(mode):04o}")
    return found
