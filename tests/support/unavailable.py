"""What a test does when a tool it needs is missing here: skip, saying why — except under CI.

CI (`CI` set, as .ci/run and every CI service set it) installs every tool the suite needs, so there a
missing one is a broken install, and a test that skipped green would hide it: it fails instead.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def under_ci() -> bool:
    return bool(os.environ.get("CI"))


def unavailable(reason: str) -> NoReturn:
    """Skip the test with `reason`; under CI fail it with the same reason."""
    if under_ci():
        pytest.fail(f"CI must run this test, but {reason}")
    pytest.skip(reason)
