"""OpenClaw's own clients for the interop tests, installed (pinned, cached) by scripts/install-openclaw.sh.

Where npm is absent the tests that need them skip, saying why; with `CI` set they fail instead: CI must
run them (.ci/run installs them first).
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support.unavailable import unavailable

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class OpenClawInstall:
    node: Path
    """Node 24's `node`."""
    openclaw: Path
    """OpenClaw's CLI entry (`openclaw.mjs`), run with `node`."""
    node_client_dir: Path
    """Where `openclaw-node` is installed (node_modules/openclaw-node)."""


def install_openclaw() -> OpenClawInstall:
    """Install (or reuse) OpenClaw's clients; skip, or under CI fail, where that cannot be done."""
    if shutil.which("npm") is None or shutil.which("flock") is None:
        unavailable("npm and flock are needed: scripts/install-openclaw.sh cannot install OpenClaw's clients")
    done = subprocess.run(["bash", str(REPO / "scripts" / "install-openclaw.sh")], capture_output=True, text=True,
                          timeout=900)  # fmt: skip
    assert done.returncode == 0, done.stderr
    exports = dict(line.removeprefix("export ").split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    node_bin, openclaw_bin = exports["PATH"].split(":")[:2]
    return OpenClawInstall(
        node=Path(node_bin) / "node",
        openclaw=Path(openclaw_bin).parent / "openclaw" / "openclaw.mjs",
        node_client_dir=Path(exports["OPENCLAW_NODE_CLIENT_DIR"]),
    )
