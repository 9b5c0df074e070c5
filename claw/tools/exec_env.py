"""The environment `exec` gives a command: a small default set, plus what config passes on purpose.

Provider keys, the gateway token, channel tokens, a database URL or a proxy with a password live in the
gateway's environment; a command the model runs must not be able to print them, and no rule over names
catches them all (`TRACKER_AUTH`, `OPENAI_BASE_URL=https://user:pass@…`). So, as for MCP servers (the
SDK's default environment), a command gets only:

- the default names (`DEFAULT_NAMES`: PATH, HOME, USER, the locale …) that the gateway has;
- the names in `tools.exec.passEnv`: an exact name is passed as it is, because the operator named it; a
  glob (`GIT_*`) passes only what matches and looks like no secret — by name (`*_TOKEN`, `*_AUTH` …) or
  by value (a URL with a user and password) — because what it matches was not chosen one by one.

A default value that carries credentials, or is an exported shell function, stays out too.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Mapping

from claw.redact import redact_urls

DEFAULT_NAMES: tuple[str, ...] = (
    # The MCP SDK's default environment for stdio servers (mcp.client.stdio.DEFAULT_INHERITED_ENV_VARS) …
    "HOME",
    "LOGNAME",
    "PATH",
    "SHELL",
    "TERM",
    "USER",
    # … and the locale and time zone, without which tools print in ASCII and the wrong zone.
    "LANG",
    "LANGUAGE",
    "TZ",
)
DEFAULT_PATTERNS: tuple[str, ...] = ("LC_*",)

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
    "*_AUTH",
    "*_AUTHORIZATION",
    "*_COOKIE",
    "*_DSN",
)

DENIED_NAMES: frozenset[str] = frozenset(
    {
        "OPENAI_API_KEY",
        "CLAW_GATEWAY_TOKEN",
        "CLAW_HOOK_TOKEN",
        "DATABASE_URL",
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
    """True if a variable called `name` looks like a secret, and so never reaches a command by a glob."""
    upper = name.upper()
    return upper in DENIED_NAMES or any(fnmatch.fnmatchcase(upper, p) for p in SECRET_NAME_PATTERNS)


def has_credentials(value: str) -> bool:
    """True if `value` holds a URL with userinfo (`https://user:pass@host`, `http://u:p@proxy:3128`)."""
    return redact_urls(value) != value


def command_env(pass_env: Iterable[str] = (), source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a command: the defaults and `pass_env` (names or globs) from `source` (default:
    `os.environ`), by the rules above."""
    env = os.environ if source is None else source
    exact = {entry for entry in pass_env if not _is_glob(entry)}
    globs = [*DEFAULT_PATTERNS, *(entry for entry in pass_env if _is_glob(entry))]
    out: dict[str, str] = {}
    for name, value in env.items():
        if name in exact or (_matches(name, globs) and _harmless(name, value)):
            out[name] = value
    return out


def _matches(name: str, globs: list[str]) -> bool:
    return name in DEFAULT_NAMES or any(fnmatch.fnmatchcase(name, glob) for glob in globs)


def _harmless(name: str, value: str) -> bool:
    return not is_secret_name(name) and not has_credentials(value) and not value.startswith("()")


def _is_glob(entry: str) -> bool:
    return any(char in entry for char in "*?[")
