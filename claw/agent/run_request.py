"""`RunRequest`: the run as the runtime reads it — the part of the core's `Run` a turn needs.

The runtime declares what it reads and the core's `Run` (with its `MsgContext`) provides it
structurally, so the runtime never imports the core: the dependency points from the gateway
to the agent loop, not back. Read-only properties, because the core's objects are what they are
(`MsgContext` is frozen) and the runtime changes nothing on them but through `take_steered`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class RunMessage(Protocol):
    """The inbound message that started the run (the core's `MsgContext`)."""

    @property
    def body(self) -> str: ...

    @property
    def body_for_agent(self) -> str | None:
        """What the model sees (set once the core has finalised the message)."""

    @property
    def channel(self) -> str: ...

    @property
    def chat_type(self) -> str: ...

    @property
    def sender_id(self) -> str: ...

    @property
    def command_authorized(self) -> bool: ...

    @property
    def system_event(self) -> bool:
        """A note from the system: recorded with role `system` rather than `user`."""


class RunRequest(Protocol):
    """One run of one agent for one message."""

    @property
    def id(self) -> str: ...

    @property
    def session_key(self) -> str: ...

    @property
    def ctx(self) -> RunMessage: ...

    @property
    def model_override(self) -> str | None: ...

    @property
    def notes(self) -> Sequence[str]:
        """System notes recorded in the transcript before the message (e.g. dropped messages)."""

    def take_steered(self) -> Sequence[RunRequest]:
        """The queued runs this run absorbs now (steer mode); their messages join this turn."""
