"""A real `claw gateway run` (with the scripted model) and one headless Chromium per test module.

The browser is Debian's `chromium` (`scripts/install-chromium.sh`), driven by Playwright for Python pointed at
it with `executable_path`: Playwright never downloads a browser here. Where chromium or Playwright is
missing the tests skip, saying why; with `CI` set they fail instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_gateway_cli import GatewayProc, start_gateway
from tests.support.fixtures import API_KEY, MODEL
from tests.support.model_server import ScriptedModelServer
from tests.support.processes import run_claw
from tests.support.unavailable import unavailable

TOKEN = "web-chat-token-5e2a9c"
CHROMIUM = os.environ.get("CLAW_CHROMIUM", "/usr/bin/chromium")


@dataclass(frozen=True, slots=True)
class WebRig:
    """A gateway serving the pages, its model server, and where the tests write their screenshots."""

    gateway: GatewayProc
    model: ScriptedModelServer
    home: Path
    shots: Path
    env: dict[str, str]
    """The gateway's environment, for `claw` commands against the same home."""

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.gateway.info['port']}"


def start_rig(root: Path, model: ScriptedModelServer, config: str = "") -> WebRig:
    home = root / "claw-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CLAW_", "OPENCLAW_"))}
    env |= {"CLAW_HOME": str(home), "OPENAI_BASE_URL": model.base_url, "OPENAI_API_KEY": API_KEY,
            "CLAW_MODEL": MODEL, "CLAW_GATEWAY_TOKEN": TOKEN, "NO_PROXY": "127.0.0.1,localhost"}  # fmt: skip
    assert run_claw(env, "init").returncode == 0
    if config:
        with (home / "config.toml").open("a") as config_file:
            config_file.write(config)
    shots = root / "screenshots"
    shots.mkdir()
    return WebRig(start_gateway(env, home), model, home, shots, env)


def stop_rig(rig: WebRig) -> None:
    if rig.gateway.proc.poll() is None:
        rig.gateway.proc.kill()
        rig.gateway.proc.wait(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module's tests (each test gets its own context, so its own storage)."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        unavailable(f"chromium is needed at {CHROMIUM} (scripts/install-chromium.sh installs Debian's)")
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")  # the browser is Debian's, never Playwright's
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright (Python) is needed: pip install -e '.[test]'")
    with sync_playwright() as playwright:
        # `*.claw.test` names this machine, as a DNS name pointed at it would (a rebinding attack, or a VPN name).
        rules = "--host-resolver-rules=MAP *.claw.test 127.0.0.1"
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=[rules])
        try:
            yield chromium
        finally:
            chromium.close()
