"""The environment `exec` gives a command: the gateway's own, minus anything that looks like a secret.

Provider keys, the gateway token and channel tokens live in the gateway's
environment; a command the model runs must not be able to print them. Names are
matched case-insensitively against a few shapes (`*_KEY`, `*_TOKEN`, …) and an
explicit deny list for well-known secrets whose names fit no shape.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping

SECRET_NAME_PATTERNS: tuple[str, ...] = (
    "*_KEY",
    "*_KEYS",
    "*_TOKEN",
    "*_TOKENS",
    "*_SECRET",
    "*_SECRETS",
    "*PASSWORD*",
    "*PASSWD*",
    "*API_KEY*",
    "*_CREDENTIALS",
)

DENIED_NAMES: frozenset[str] = frozenset(
    {
        "OPENAI_API_KEY",
        "CLAW_GATEWAY_TOKEN",
        "CLAW_HOOK_TOKEN",
        "MYSQL_PWD",
        "PGPASS",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "DOCKER_AUTH_CONFIG",
        "NETRC",
        "SSHPASS",
        # Not a secret itself, but it would let an agent-run `python` import the
        # gateway's own packages and read its configuration (hermes-agent #7071).
        "PYTHONPATH",
    }
)


def is_secret_name(name: str) -> bool:
    """True if an environment variable called `name` must not reach an exec'd command."""
    upper = name.upper()
    return upper in DENIED_NAMES or any(fnmatch.fnmatchcase(upper, p) for p in SECRET_NAME_PATTERNS)


def scrubbed_env(source: Mapping[str, str] | None = None) -> dict[str, str]:
    """A copy of `source` (default: `os.environ`) without secret-looking variables."""
    env = os.environ if source is None else source
    return {name: value for name, value in env.items() if not is_secret_name(name)}
