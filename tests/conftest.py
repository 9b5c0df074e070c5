"""Suite-wide configuration: the shared fixtures live in ``tests/support/fixtures.py``."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator

import pytest

pytest_plugins = ["tests.support.fixtures"]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Workers for `-n auto`: twice the cores, since most tests wait on sockets, timers and the `claw` processes
    they start rather than compute; `PYTEST_WORKERS` overrides."""
    wanted = os.environ.get("PYTEST_WORKERS")
    return int(wanted) if wanted else 2 * (os.cpu_count() or 1)


@pytest.fixture(autouse=True)
def _surface_leaks() -> Iterator[None]:
    """Collect garbage after each test (this fixture is torn down last), so a socket, file, transport or process
    the test leaked warns during its own teardown, failing it (see `filterwarnings` in pyproject.toml), rather
    than during whichever test the collector happens to run in later. Freezing first keeps that collection to
    the test's own objects (a full one costs ~70 ms in a worker that imported claw, textual and openai)."""
    gc.freeze()  # what exists now is not this test's doing: the collection below looks only at what it made
    yield
    gc.collect()
