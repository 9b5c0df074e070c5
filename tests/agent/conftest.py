"""Whole runs through an in-process gateway on a temporary CLAW_HOME, against the scripted model server."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from claw.client.local import LocalClient
from claw.vocab.run_event import RunEvent
from tests.support.fixtures import ClawEnv

NOTE = "SECRET-42 is in the note.\n"


@pytest.fixture
def make_client(claw_env: ClawEnv, local_clients: Callable[[], LocalClient]) -> Callable[..., LocalClient]:
    """A client over a fresh gateway whose config.toml is `config`, with `note.md` in the main workspace."""

    def make(config: str = "") -> LocalClient:
        (claw_env.home / "config.toml").write_text(config, encoding="utf-8")
        client = local_clients()
        workspace = client.gateway.workspace("main")
        workspace.mkdir(parents=True, exist_ok=True)
        (workspace / "note.md").write_text(NOTE, encoding="utf-8")
        return client

    return make


async def run(client: LocalClient, message: str = "go") -> list[RunEvent]:
    """Run `message` and return every event of the run."""
    handle = await client.run(message)
    return [event async for event in client.events(handle.run_id)]


def said(events: list[RunEvent]) -> str:
    return "".join(e.data.get("delta", "") for e in events if e.stream == "assistant")


def thought(events: list[RunEvent]) -> str:
    return "".join(e.data.get("delta", "") for e in events if e.stream == "thinking")


def tool_results(events: list[RunEvent]) -> list[dict[str, Any]]:
    return [e.data for e in events if e.stream == "tool" and e.data["phase"] == "result"]


def terminal(events: list[RunEvent]) -> dict[str, Any]:
    last = events[-1]
    assert last.is_terminal, last
    return last.data


def transcript(home: Path) -> list[dict[str, Any]]:
    """The entries of the main agent's only session."""
    (path,) = (home / "agents" / "main" / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
