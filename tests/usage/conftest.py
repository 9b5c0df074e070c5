"""Usage tests: an in-process gateway on a temporary CLAW_HOME and the scripted model server, whose replies
carry usage with cache and reasoning details (or none, for estimated rows); rows read back from gateway.db."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from claw.client.local import LocalClient
from claw.usage.capability import UsageCapability
from claw.vocab.run_event import RunEvent
from tests.channels.conftest import home, start_channels, telegram  # noqa: F401  (a gateway with channels)
from tests.support.fixtures import ClawEnv
from tests.support.model_server import Usage
from tests.tui.conftest import console, remote_console, workspace  # noqa: F401  (the console's fixtures, here too)

KEY = "agent:main:main"

# input 1000 of which 600 cached and 100 written to the cache; output 50 of which 20 reasoning
DETAILED = Usage(1000, 50, cached_tokens=600, cache_write_tokens=100, reasoning_tokens=20)


@pytest.fixture
def make_client(claw_env: ClawEnv, local_clients: Callable[[], LocalClient]) -> Callable[[], LocalClient]:
    ws = claw_env.home / "workspace"
    ws.mkdir(exist_ok=True)
    (ws / "SOUL.md").write_text("You are Testy.\n", encoding="utf-8")
    return local_clients


def write_config(env: ClawEnv, text: str) -> None:
    (env.home / "config.toml").write_text(text, encoding="utf-8")


async def collect(client: LocalClient, run_id: str) -> list[RunEvent]:
    return [event async for event in client.events(run_id)]


async def turn(client: LocalClient, message: str, **kwargs: Any) -> list[RunEvent]:
    handle = await client.run(message, **kwargs)
    assert handle.run_id, handle
    return await collect(client, handle.run_id)


def ledger_of(client: LocalClient) -> UsageCapability:
    return client.gateway.capability(UsageCapability)


def rows(env: ClawEnv, where: str = "", args: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    """Every ledger row, read with a connection of the test's own (what another process would see)."""
    path = db_path(env)
    if not path.exists():
        return []
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(f"SELECT * FROM usage_calls {where} ORDER BY id", args)]
    finally:
        conn.close()


def db_path(env: ClawEnv) -> Path:
    return env.home / "gateway.db"
