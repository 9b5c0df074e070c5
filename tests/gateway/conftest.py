"""A real in-process gateway on a temporary CLAW_HOME, talking to the scripted model server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from claw.client.local import LocalClient
from claw.vocab.run_event import RunEvent
from tests.support.fixtures import ClawEnv


def write_config(home: Path, text: str) -> None:
    (home / "config.toml").write_text(text, encoding="utf-8")


@pytest.fixture
def workspace(claw_env: ClawEnv) -> Path:
    ws = claw_env.home / "workspace"
    ws.mkdir(exist_ok=True)
    (ws / "SOUL.md").write_text("You are Testy, a careful assistant.\n", encoding="utf-8")
    return ws


@pytest.fixture
def make_client(workspace: Path, local_clients: Callable[[], LocalClient]) -> Callable[[], LocalClient]:
    """Build a client over a fresh gateway (after the test wrote any config it wants)."""
    return local_clients


@pytest.fixture
async def client(make_client: Callable[[], LocalClient]) -> LocalClient:
    return make_client()


async def collect(client: LocalClient, run_id: str) -> list[RunEvent]:
    return [event async for event in client.events(run_id)]


def text_of(events: list[RunEvent]) -> str:
    return "".join(e.data.get("delta", "") for e in events if e.stream == "assistant")


def phases(events: list[RunEvent]) -> list[str]:
    return [e.data["phase"] for e in events if e.stream == "lifecycle"]
