"""The `realmodel` tests: claw against a real llama.cpp server running a tiny model (SmolLM2-135M, 4,096 tokens).

One server per test session (per xdist worker). Where scripts/install-llama-server.sh has not been run the
tests skip, saying so; with `CI` set they fail instead (CI runs the script first).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fixtures import ClawEnv
from tests.support.llama_server import MODEL_NAME, LlamaServer, find_llama
from tests.support.unavailable import unavailable


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.realmodel)


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """A started `llama-server -m smollm2.gguf -c 4096 --jinja`, shared by the session's tests."""
    found = find_llama()
    if isinstance(found, str):
        unavailable(found)
    server = LlamaServer(*found, log_path=tmp_path_factory.mktemp("llama") / "server.log")
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.fixture
def real_env(claw_env: ClawEnv, llama_server: LlamaServer, monkeypatch: pytest.MonkeyPatch) -> ClawEnv:
    """`claw_env` pointed at the real server as docs/local-models.md says for llama.cpp: a bare model name on the
    `openai` provider, `OPENAI_BASE_URL` at the server, any key."""
    monkeypatch.setenv("OPENAI_BASE_URL", llama_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "none")
    monkeypatch.setenv("CLAW_MODEL", MODEL_NAME)
    env = {**claw_env.env, "OPENAI_BASE_URL": llama_server.base_url, "OPENAI_API_KEY": "none", "CLAW_MODEL": MODEL_NAME}
    return ClawEnv(home=claw_env.home, server=claw_env.server, env=env)
