"""The gateway operations a capability may be handed: one small Protocol per need.

A capability never gets the whole `Gateway` (its runner, lanes, bus and tables): its constructor takes
its own host protocol (`claw/subagents/host.py`, `claw/skills/host.py` …), which inherits the needs
below that it has and adds any operation only it uses. `Gateway` satisfies every one of them
structurally and `claw.compose` passes it; a test may pass anything with the same few members.
`tests/gateway/test_hosts.py` checks that the gateway still offers each member a host names.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from claw.config import Config
    from claw.gateway.event_bus import Subscription
    from claw.gateway.runs import Run
    from claw.paths import Paths
    from claw.store.sessions import SessionStore
    from claw.vocab.msg_context import MsgContext
    from claw.vocab.run_event import RunEvent


class Configured(Protocol):
    """The settings and where claw keeps its state. Read them at use, not once at construction, so a
    capability sees what the gateway sees."""

    @property
    def paths(self) -> Paths: ...

    @property
    def config(self) -> Config: ...


class Workspaces(Protocol):
    """Where an agent's workspace is."""

    def workspace(self, agent_id: str) -> Path: ...


class SessionLookup(Protocol):
    """Looking sessions up: an agent's session store (its index and transcripts)."""

    def sessions(self, agent_id: str) -> SessionStore:
        """The store of `agent_id`; a `ConfigError` naming the configured agents for any other."""
        ...


class RunControl(Protocol):
    """Starting runs of one's own (a subagent, an automation's turn, a message between sessions) and
    stopping them."""

    async def start_run(self, ctx: MsgContext, *, lane: str, model: str | None = None) -> Run:
        """Dispatch `ctx` on the global lane `lane` and return its run, already queued. `NoRunStarted`
        when the message did not become a run; any other `ClawError` (an unknown agent, a gateway that
        is shutting down) as `dispatch` raises it."""
        ...

    def abort(self, run_id: str) -> bool:
        """Stop the run; False when it is unknown or already ending. Its terminal event says `aborted`."""
        ...


class RunWatch(Protocol):
    """Following runs: find one, read its events, and know whether an abort came from a shutdown."""

    def find_run(self, run_id: str) -> Run | None:
        """A running or recently finished run."""
        ...

    def subscribe_run(self, run_id: str) -> tuple[list[RunEvent], Subscription]:
        """The run's events so far and a subscription for the rest, with nothing falling between."""
        ...

    @property
    def closing(self) -> bool:
        """True once the gateway has begun to shut down (it is aborting every run)."""
        ...
