"""Pytest fixtures shared by the whole suite (loaded by ``tests/conftest.py``).

``model_server``: a started ``ScriptedModelServer``, stopped after the test.
``claw_env``: an isolated claw environment pointed at that server::

    def test_agent_replies(claw_env):
        claw_env.server.script(text("Hi!"))
        done = run_claw(claw_env.env, "agent", "-m", "hello")  # tests/support/processes.py
        assert claw_env.server.last_request().messages[-1]["content"] == "hello"
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.model_server import ScriptedModelServer

# Variables the openai client or claw read from the environment; a developer's own values must not
# leak into a test (an OPENAI_ORG_ID would be sent as a header, a CLAW_HOME would touch real files).
_SCRUBBED_PREFIXES = ("OPENAI_", "CLAW_")

API_KEY = "test-key"
MODEL = "test-model"


@dataclass(frozen=True, slots=True)
class ClawEnv:
    """What ``claw_env`` set up: the claw home, the model server, and the environment to hand a subprocess."""

    home: Path
    server: ScriptedModelServer
    env: dict[str, str]  # a full copy of os.environ as the test sees it, for subprocess.run(env=...)


@pytest.fixture
def model_server() -> Iterator[ScriptedModelServer]:
    """A scripted OpenAI-compatible server on 127.0.0.1, fresh for each test."""
    with ScriptedModelServer(models=(MODEL,)) as server:
        yield server


@pytest.fixture
def claw_env(model_server: ScriptedModelServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ClawEnv:
    """Point claw at a temporary home and at ``model_server``, in this process and for subprocesses."""
    home = tmp_path / "claw-home"
    home.mkdir()
    for name in list(os.environ):
        if name.startswith(_SCRUBBED_PREFIXES):
            monkeypatch.delenv(name)
    monkeypatch.setenv("CLAW_HOME", str(home))
    monkeypatch.setenv("OPENAI_BASE_URL", model_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("CLAW_MODEL", MODEL)
    # A proxy configured on the machine must not intercept calls to the local server.
    for name in ("NO_PROXY", "no_proxy"):
        existing = os.environ.get(name, "")
        monkeypatch.setenv(name, ",".join(filter(None, [existing, "127.0.0.1", "localhost"])))
    return ClawEnv(home=home, server=model_server, env=dict(os.environ))


@pytest.fixture
async def local_clients(claw_env: ClawEnv) -> AsyncIterator[Callable[[], Any]]:
    """Build `LocalClient`s over fresh in-process gateways on `claw_env` (call it after the test wrote
    any config it wants); every client made is closed after the test."""
    from claw.client.local import LocalClient
    from claw.compose import build_gateway
    from claw.config import load_config
    from claw.paths import Paths

    clients: list[LocalClient] = []

    def factory() -> LocalClient:
        paths = Paths.from_env()
        client = LocalClient(build_gateway(paths, load_config(paths)))
        clients.append(client)
        return client

    yield factory
    for client in clients:
        await client.close()
