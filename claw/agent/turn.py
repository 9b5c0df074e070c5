"""`Turn`: what one run's prompt is built from, put together once and handed down whole.

The runner builds one per run, after the run's prompt sections, tool schemas and bootstrap
files are known; the context manager builds, prunes, flushes and compacts every prompt of the
run from it. `/context` and `/compact` build one for a session between turns (no events, the
workspace's own bootstrap files). Frozen: nothing below the runner may swap a part of the turn
for another; the transcript it points to is the one thing that grows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from claw.agent.bootstrap import BootstrapFile
from claw.agent.env import AgentEnv
from claw.store.transcript import Transcript
from claw.vocab.run_event import Stream

Emit = Callable[[Stream, dict[str, Any]], None]
"""Where the runtime's events go: the core passes one per run and turns each call into a `RunEvent`."""


def no_events(stream: Stream, data: dict[str, Any]) -> None:
    """The `Emit` of a turn nobody watches (a `/compact` between turns, the memory flush's own model call)."""


@dataclass(frozen=True, slots=True)
class Turn:
    """One run's prompt inputs (or a session's, between turns)."""

    env: AgentEnv
    session_key: str
    transcript: Transcript
    tools: list[dict[str, Any]]
    """The tool schemas offered to the model (a subagent session's denied tools left out)."""
    extra: list[tuple[str, str]]
    """The capabilities' prompt sections, (name, text), rendered once for the run."""
    chain: list[str]
    """The model refs to try, in order (the run's override first)."""
    emit: Emit = no_events
    bootstrap: list[BootstrapFile] | None = None
    """The bootstrap files as the run's filters (agent:bootstrap hooks) left them, so every prompt of the
    run injects the same ones; None: read them from the workspace for each prompt."""
    squeeze: bool = False
    """Build the small-window prompt whatever the window (after the server refused a prompt as too long)."""

    @property
    def agent_id(self) -> str:
        return self.env.agent_id
