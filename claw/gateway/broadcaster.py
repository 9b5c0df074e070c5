"""`Broadcaster`: where the gateway hands every RunEvent it emits for the gateway-wide events, and where
interfaces listen for those.

The events themselves (OpenClaw's `chat`, `sessions.changed`, `session.message`) are the wire API's
projection (`claw.api.broadcasts.Broadcasts`); composition builds it and hands it to the `Gateway`, so the
core knows only this shape, not OpenClaw's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from claw.vocab.run_event import RunEvent

Listener = Callable[[str, dict[str, Any]], None]
"""Called with an event's name (`chat`, `sessions.changed`, `session.message`) and its payload."""


class Broadcaster(Protocol):
    """The gateway-wide event stream."""

    def run_event(self, event: RunEvent) -> None:
        """What `event`, just emitted by a run, means for the gateway-wide events."""
        ...

    def listen(self, listener: Listener, *, active: Callable[[], bool] = ...) -> Callable[[], None]:
        """Add `listener` (`active` says whether it wants events just now); returns what removes it."""
        ...

    @property
    def listening(self) -> bool: ...

    def publish(self, name: str, payload: dict[str, Any]) -> None: ...

    def session_changed(
        self, session_key: str, reason: str, *, deleted_session_id: str | None = None, ended: str | None = None
    ) -> None:
        """`sessions.changed` for `session_key` (a method changed it: patched, reset, deleted …)."""
        ...
