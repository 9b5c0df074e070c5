"""`sandbox` in config.toml's `[agents.defaults]` and `[agents.list.<id>]`: where `exec` runs its commands.

OpenClaw's names: `mode = "off" | "non-main" | "all"`. claw's sandbox is bubblewrap (`bwrap`): the
workspace read-write, the system read-only, claw's state dir and the user's home out of sight, a
private /tmp, no network, and a PID namespace that ends with the command. See claw/tools/sandbox.py.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from pydantic import field_validator

from claw.settings_base import Section

SandboxMode = Literal["off", "non-main", "all"]


@dataclass(frozen=True, slots=True)
class Bind:
    """One extra mount: `source` on the host at `target` in the sandbox, read-only unless `writable`."""

    source: str
    target: str
    writable: bool


class SandboxSettings(Section):
    """How `exec` isolates a command. Off-sandbox commands still end with their whole process tree."""

    mode: SandboxMode = "all"
    """`all` (default): every session's commands run sandboxed, the owner's main session too.
    `non-main`: all but the owner's main session (`agent:<id>:main` driven from the console, the CLI or an
    authenticated gateway client) are sandboxed. `off`: no sandbox. Where bwrap cannot run, the main
    session runs unsandboxed with a one-line notice and every other session refuses to exec."""
    network: bool = False
    """Let sandboxed commands use the network (the host's). Off: a private network with only loopback, so
    neither the internet nor a service on the host's 127.0.0.1 (the gateway itself) is reachable."""
    binds: tuple[str, ...] = ()
    """Extra host paths to show inside, OpenClaw/Docker style: `SRC`, `SRC:DEST`, `SRC:ro`, `SRC:DEST:rw`.
    Read-only unless `:rw`; SRC and DEST absolute or `~/…`; a missing SRC is skipped. E.g. `~/.gitconfig`."""

    @field_validator("binds")
    @classmethod
    def _binds_parse(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for spec in value:
            parse_bind(spec)  # raises ValueError, which pydantic reports with the key
        return value

    def parsed_binds(self) -> tuple[Bind, ...]:
        return tuple(parse_bind(spec) for spec in self.binds)


def parse_bind(spec: str) -> Bind:
    """`SRC[:DEST][:ro|rw]` as a `Bind` (`~/` is the gateway user's home); ValueError naming the expected
    shape otherwise."""
    parts = spec.split(":")
    writable = False
    if len(parts) > 1 and parts[-1] in ("ro", "rw"):
        writable = parts.pop() == "rw"
    if len(parts) not in (1, 2) or not all(parts):
        raise ValueError(f"bind {spec!r}: expected SRC, SRC:DEST, SRC:ro or SRC:DEST:rw")
    source, target = (os.path.expanduser(part) if part.startswith("~/") else part for part in (parts[0], parts[-1]))
    for path in (source, target):
        if not PurePosixPath(path).is_absolute() or ".." in PurePosixPath(path).parts:
            raise ValueError(f"bind {spec!r}: {path!r} must be an absolute path (or ~/…) without '..'")
    return Bind(source, target, writable)
