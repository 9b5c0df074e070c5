"""Fixtures for the store tests: a session store in a temporary claw home."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from claw.paths import Paths
from claw.store.sessions import SessionStore
from claw.store.transcript import Transcript


@pytest.fixture
def sessions_dir(tmp_path: Path) -> Path:
    return Paths(config_dir=tmp_path, data_dir=tmp_path).sessions_dir("main")


@pytest.fixture
def store(sessions_dir: Path) -> Iterator[SessionStore]:
    session_store = SessionStore(sessions_dir)
    yield session_store
    session_store.close()


@pytest.fixture
def transcript(tmp_path: Path) -> Iterator[Transcript]:
    log = Transcript(tmp_path / "t" / "session.jsonl")
    yield log
    log.close()
