"""What a consumer of run events may meet: it is dropped when it falls behind.

The event bus (claw/gateway/event_bus.py) raises it; every client's `events()` passes it on (see
claw/client/protocol.py), and the server, the TUI and the CLI catch it.
"""

from __future__ import annotations

from claw.errors import ClawError


class SubscriberOverflow(ClawError):
    """The subscriber fell so far behind that events were dropped for it."""
