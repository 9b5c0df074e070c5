"""Hook tests: real hook folders on disk, a real in-process gateway, the scripted model server."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from claw.client.local import LocalClient
from claw.compose import build_gateway
from claw.config import load_config
from claw.gateway.gateway import Gateway
from claw.paths import Paths
from tests.support.fixtures import ClawEnv
from tests.support.processes import run_claw

EVENTS_FILE = "hook-events.jsonl"

RECORDER = """
import json

def handle(event):
    with open(event.state_dir / "hook-events.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps({"hook": HOOK, **event.to_json()}) + "\\n")
"""


def write_hook(root: Path, name: str, events: list[str], handler: str, *, front: str = "") -> Path:
    """`root/<name>/HOOK.md` + `handler.py`; `handler` may use the global HOOK (the hook's name)."""
    directory = root / name
    directory.mkdir(parents=True, exist_ok=True)
    manifest = f"---\nname: {name}\ndescription: The {name} test hook.\nevents: {json.dumps(events)}\n{front}---\n"
    (directory / "HOOK.md").write_text(manifest, encoding="utf-8")
    code = f"HOOK = {name!r}\n" + textwrap.dedent(handler)
    (directory / "handler.py").write_text(code, encoding="utf-8")
    return directory


def recorded(home: Path) -> list[dict[str, Any]]:
    path = home / EVENTS_FILE
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_config(home: Path, text: str) -> None:
    (home / "config.toml").write_text(textwrap.dedent(text), encoding="utf-8")


@pytest.fixture
def workspace(claw_env: ClawEnv) -> Path:
    ws = claw_env.home / "workspace"
    ws.mkdir(exist_ok=True)
    (ws / "SOUL.md").write_text("You are Testy, a careful assistant.\n", encoding="utf-8")
    return ws


@pytest.fixture
def managed(claw_env: ClawEnv) -> Path:
    """$CLAW_HOME/hooks: hooks here run unless disabled."""
    return claw_env.home / "hooks"


@pytest.fixture
async def make_gateway(claw_env: ClawEnv, workspace: Path) -> AsyncIterator[Callable[[], Gateway]]:
    """A fresh gateway over the test's CLAW_HOME (built after the test wrote its config and hooks)."""
    made: list[Gateway] = []

    def factory() -> Gateway:
        paths = Paths.from_env()
        gateway = build_gateway(paths, load_config(paths))
        made.append(gateway)
        return gateway

    yield factory
    for gateway in made:
        await gateway.close()


def local(gateway: Gateway) -> LocalClient:
    return LocalClient(gateway, owns_gateway=False)


def claw(env: dict[str, str], *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """`python -m claw …` as a real subprocess, from the repository root."""
    return run_claw(env, *args, timeout=timeout)


def clean_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAW_", "OPENAI_"))}
    return {**env, "CLAW_HOME": str(home), **extra}
