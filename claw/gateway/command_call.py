"""What a slash command is and how it is called: the parsed call, a command's possible answers, and the
shapes of what capabilities add (`Command`, fallbacks, `/stop` listeners). The table that runs them is
`claw.gateway.commands`; this module imports nothing of the gateway, so capabilities and the hook points
can name these without importing the core.

A handler is called with the gateway as its first argument, typed `Any` here: each handler types it by
the narrow protocol of what it uses (`claw.gateway.commands.CommandHost` for the core's own).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claw.gateway.dispatch_result import CommandError


@dataclass(frozen=True, slots=True)
class CommandCall:
    """A parsed slash command, with where it came from."""

    name: str
    args: str
    agent_id: str
    session_key: str
    channel: str = "cli"
    sender_id: str = "local"


@dataclass(frozen=True, slots=True)
class RunInstead:
    """A command's answer that starts a normal run, the model seeing `message` (e.g. `/skill name args`)."""

    message: str


@dataclass(frozen=True, slots=True)
class NotACommand:
    """A fallback's answer for a `/name` it does not take, with the names it would take (a skill fallback's
    runnable skills), so that the "unknown command" reply can offer the nearest of them."""

    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CommandFailed:
    """A command's reply that is an error: `/bogus` (`unknown-command`), `/queue sideways` (`usage`: a
    `UsageError`), or a command that could not do its job (`failed`: any other `ClawError`). Channels
    answer with `message` like any reply; `claw agent` prints it as an error and exits non-zero."""

    message: str
    kind: CommandError


Handler = Callable[[Any, CommandCall], Awaitable["str | RunInstead"]]
Fallback = Callable[[Any, CommandCall], Awaitable["str | RunInstead | NotACommand | None"]]
"""Asked in order about a `/name` that is not a command (e.g. `/<skill>`); `NotACommand` (or None)
means "not mine"."""
StopListener = Callable[[Any, str], int]
"""Called by /stop with the session key; each stops what it owns there (e.g. the session's subagents)
and returns how many runs it stopped."""


@dataclass(frozen=True, slots=True)
class Command:
    """A slash command: `/name`, its one-line help, and what answers it."""

    name: str
    description: str
    handler: Handler
