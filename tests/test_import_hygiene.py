"""`claw --help` stays fast: the CLI's start imports neither textual nor openai."""

from __future__ import annotations

import subprocess
import sys

PROBE = r"""
import sys
from claw.cli.app import app
try:
    app(["--help"], standalone_mode=False)
except SystemExit:
    pass
for name in ("init", "sessions", "config", "workspace", "agent", "agents", "chat", "skills", "memory",
             "automations", "gateway", "hooks", "channels", "pairing", "outbox", "doctor"):
    try:
        app([name, "--help"], standalone_mode=False)
    except SystemExit:
        pass
heavy = sorted(m for m in ("textual", "openai", "aiohttp", "httpx") if m in sys.modules)
sys.stderr.write("HEAVY:" + ",".join(heavy) + "\n")
"""


def test_cli_start_imports_neither_textual_nor_openai() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    assert "Usage:" in done.stdout
    assert "HEAVY:\n" in done.stderr


def test_gateway_and_runtime_never_import_textual() -> None:
    probe = "import sys, claw.gateway.gateway, claw.gateway.methods, claw.agent.runner; print('textual' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
