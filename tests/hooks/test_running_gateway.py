"""With `claw gateway run` up: gateway:startup fires, and `claw hooks enable` applies in it at once."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.hooks.conftest import RECORDER, recorded, write_hook
from tests.server.test_gateway_cli import GATEWAY_TOKEN, claw, start_gateway
from tests.support.fixtures import ClawEnv


def _wait_for(path: Path, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text(encoding="utf-8"):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)
    return path.read_text(encoding="utf-8")


def test_enable_goes_through_the_running_gateway(claw_env: ClawEnv) -> None:
    env = {**claw_env.env, "CLAW_GATEWAY_TOKEN": GATEWAY_TOKEN}
    assert claw(env, "init").returncode == 0
    write_hook(claw_env.home / "hooks", "recorder", ["gateway:startup"], RECORDER)
    running = start_gateway(env, claw_env.home)
    try:
        _wait_for(claw_env.home / "hook-events.jsonl")
        [startup] = recorded(claw_env.home)
        assert startup["event"] == "gateway:startup" and startup["agentIds"] == ["main"]

        done = claw(env, "hooks", "enable", "command-logger")
        assert done.returncode == 0, done.stderr
        assert "enabled = true" in (claw_env.home / "config.toml").read_text(encoding="utf-8")
        done = claw(env, "agent", "-m", "/new")
        assert done.returncode == 0 and "New session started" in done.stdout, done.stderr
        [line] = _wait_for(claw_env.home / "logs" / "commands.log").splitlines()
        assert json.loads(line)["event"] == "command:new"
    finally:
        assert running.stop() == 0
