"""Suite-wide configuration: the shared fixtures live in ``tests/support/fixtures.py``."""

pytest_plugins = ["tests.support.fixtures"]
