"""`ServiceSpec`: what the supervisor runs (`claw gateway run`) and with which state, environment and logs.

The unit and the plist are rendered from it; both are plain text a person can read with `--dry-run`
before anything is installed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from claw.paths import Paths

ENV_PREFIXES = ("OPENAI_", "CLAW_")
"""The variables `claw gateway install` copies from the shell into the environment file (CLAW_HOME goes in the
unit itself): the model endpoint and key, the model, the gateway token. A service inherits no shell."""


@dataclass(frozen=True, slots=True)
class ServiceSpec:
    """One installed gateway: its command line, state dir (when `CLAW_HOME` chose one) and files."""

    argv: tuple[str, ...]
    claw_home: Path | None
    env_file: Path
    log_file: Path
    working_dir: Path
    stop_timeout_s: int

    @classmethod
    def current(cls, paths: Paths, grace_s: float, environ: Mapping[str, str] | None = None) -> ServiceSpec:
        """This installation's gateway: the Python running now, so the service runs the same claw."""
        env = os.environ if environ is None else environ
        home = env.get("CLAW_HOME")
        return cls(
            argv=(sys.executable, "-m", "claw", "gateway", "run"),
            claw_home=Path(home).expanduser().resolve() if home else None,
            env_file=paths.config_dir / "gateway.env",
            log_file=paths.logs_dir / "gateway.log",
            working_dir=paths.data_dir,
            stop_timeout_s=int(grace_s) + 15,  # the gateway's own grace for running turns, then a margin
        )


def env_lines(environ: Mapping[str, str]) -> list[str]:
    """The environment file's lines from `environ`: the claw and model variables, and PATH (so `exec` finds
    the same tools as in the shell). Values are quoted for systemd's EnvironmentFile= parser."""
    names = sorted(k for k in environ if k.startswith(ENV_PREFIXES) and k != "CLAW_HOME")
    if "PATH" in environ:
        names.append("PATH")
    return [f"{name}={_env_quote(environ[name])}" for name in names if "\n" not in environ[name]]


def _env_quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
    return f'"{escaped}"'


def parse_env_file(text: str) -> dict[str, str]:
    """The variables of an environment file as `env_lines` writes it (launchd has no EnvironmentFile=)."""
    found: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        name, _, value = line.partition("=")
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1].replace('\\"', '"').replace("\\$", "$").replace("\\\\", "\\")
        found[name.strip()] = value
    return found


def write_env_file(path: Path, environ: Mapping[str, str]) -> bool:
    """Create the environment file (0600: it holds keys) unless one is there; True when it was written."""
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    header = (
        "# The environment of the claw gateway service (`claw gateway install`); edit, then `claw gateway restart`.\n"
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(header + "".join(line + "\n" for line in env_lines(environ)))
    return True
