"""`SessionWatch`: what OpenClaw's `sessions.subscribe` means for one client — the session-list events
(`sessions.changed`, `session.message`) from now on, and, when the call carried `sessions.list`'s
parameters, the list itself in the same answer.

    → {"method": "sessions.subscribe", "params": {}}             ← {"subscribed": true}
    → {"method": "sessions.subscribe", "params": {"limit": 60}}  ← {"subscribed": true, "list": {sessions: […], …}}

The watch listens on `Gateway.broadcasts` before it reads the list (OpenClaw's order: an event may arrive
while the list is built, never be lost between the two). The transport that owns the client's connection
keeps one watch per connection, hands it the function that sends an event frame, serves
`sessions.subscribe` with `subscribe` and `sessions.unsubscribe` with `unsubscribe`, and `close`s it when
the connection ends; the watch knows nothing of sockets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from claw.api.broadcasts import SESSION_EVENTS

if TYPE_CHECKING:
    from claw.api.host import ApiHost

Send = Callable[[str, dict[str, Any]], None]
"""Queue one event frame to the client (must not block: `WsConnection.post_event` is such a function)."""


class SessionWatch:
    """One client's `sessions.subscribe`: subscribe again to refresh the list; `close` to stop."""

    def __init__(self, gateway: ApiHost, send: Send) -> None:
        self._gw = gateway
        self._send = send
        self._unlisten: Callable[[], None] | None = None

    @property
    def active(self) -> bool:
        return self._unlisten is not None

    async def subscribe(self, params: dict[str, Any], *, channel: str = "ws") -> dict[str, Any]:
        """Start (or keep) the watch; with list parameters, answer the list too (`UsageError` if they are bad)."""
        started = self._unlisten is None
        if started:
            self._unlisten = self._gw.broadcasts.listen(self._forward)
        if not params:
            return {"subscribed": True}
        try:
            listed = await self._gw.call_method("sessions.list", params, channel=channel)
        except BaseException:
            if started:  # a refused call subscribes to nothing
                self.close()
            raise
        return {"subscribed": True, "list": listed}

    def unsubscribe(self) -> dict[str, Any]:
        """`sessions.unsubscribe`: stop the events (the connection stays)."""
        self.close()
        return {"subscribed": False}

    def close(self) -> None:
        unlisten, self._unlisten = self._unlisten, None
        if unlisten is not None:
            unlisten()

    def _forward(self, name: str, payload: dict[str, Any]) -> None:
        if name in SESSION_EVENTS:
            self._send(name, payload)
