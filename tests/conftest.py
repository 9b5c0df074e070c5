"""Suite-wide configuration: the shared fixtures live in ``tests/support/fixtures.py``."""

from __future__ import annotations

import os

import pytest

pytest_plugins = ["tests.support.fixtures"]


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """Workers for `-n auto`: twice the cores, since most tests wait on sockets, timers and the `claw` processes
    they start rather than compute; `PYTEST_WORKERS` overrides."""
    wanted = os.environ.get("PYTEST_WORKERS")
    return int(wanted) if wanted else 2 * (os.cpu_count() or 1)
