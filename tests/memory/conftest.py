"""Memory fixtures: a workspace holding the fixed corpus, and managers over a real SQLite index."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from claw.client.local import LocalClient
from claw.config import Config, ConfigFile
from claw.memory.manager import MemoryManager
from claw.paths import Paths
from tests.memory.corpus import write_corpus
from tests.support.fixtures import ClawEnv

MakeManager = Callable[..., MemoryManager]

EMBED_MODEL = "test-embed"


@pytest.fixture
def corpus(claw_env: ClawEnv) -> Path:
    """The main agent's workspace, filled with the fixed corpus."""
    workspace = claw_env.home / "workspace"
    workspace.mkdir(exist_ok=True)
    write_corpus(workspace)
    return workspace


@pytest.fixture
def make_manager(claw_env: ClawEnv, corpus: Path) -> Iterator[MakeManager]:
    """`make_manager(embeddings=True | {settings}, **memory_settings)`: a manager over the corpus; with
    embeddings, vectors come from the scripted server through the real openai client (OPENAI_BASE_URL)."""
    made: list[MemoryManager] = []

    def factory(*, embeddings: bool | dict[str, Any] = False, **memory: Any) -> MemoryManager:
        if embeddings:
            memory["embeddings"] = {"model": EMBED_MODEL, **(embeddings if isinstance(embeddings, dict) else {})}
        config = Config(ConfigFile.model_validate({"memory": memory}), path=claw_env.home / "config.toml")
        manager = MemoryManager(Paths.from_env(), config, lambda _agent: corpus)
        made.append(manager)
        return manager

    yield factory
    for manager in made:
        manager.close()


@pytest.fixture
def make_client(claw_env: ClawEnv, corpus: Path, local_clients: Callable[[], LocalClient]) -> Callable[[], LocalClient]:
    """A client over a fresh in-process gateway on the corpus (built after the test wrote its config)."""
    return local_clients


def write_config(env: ClawEnv, text: str) -> None:
    (env.home / "config.toml").write_text(text, encoding="utf-8")


def section(system_prompt: str, heading: str) -> str:
    """The text of one `## heading` section of a system prompt, up to the next top-level part."""
    start = system_prompt.index(heading)
    rest = system_prompt[start:]
    cut = rest.find("\n\n## Skills")
    return rest if cut < 0 else rest[:cut]
