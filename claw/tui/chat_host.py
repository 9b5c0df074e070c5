"""What the chat screen offers the helpers it is made of, as protocols.

`SessionLoader`, `RunFollower`, `ConsoleCommands` and `SubagentWatch` each declare the part of the
screen they use — a host protocol built from these two — and are handed the screen as that. So none
of them imports `ChatScreen`: the screen imports its helpers, never the other way round, and each
helper's protocol says exactly what it may touch.
"""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.worker import Worker

    from claw.client.protocol import GatewayClient


class ChatSession(Protocol):
    """The session on screen — which agent, which session, which model — that the helpers read and switch."""

    agent_id: str
    session_key: str
    session_model: str | None
    """The model stored with the session on screen (`/model`, `claw chat --model`); None: the agent's own."""
    agent_models: list[str]
    """The agent's model chain: primary, then fallbacks."""
    has_model: bool

    @property
    def api(self) -> GatewayClient:
        """The gateway client; a user-facing error while the connection is still being opened."""
        ...


class WorkerHost(Protocol):
    """Where a helper runs its background work: the screen's workers, which end with the screen."""

    def run_worker(
        self, work: Coroutine[Any, Any, Any], *, name: str, group: str, exit_on_error: bool
    ) -> Worker[Any]: ...

    def cancel_workers(self, group: str) -> None:
        """Cancel the screen's workers of `group`."""
        ...
