"""`Broadcasts`: the gateway's events that are not one run's RunEvents — OpenClaw's `chat`,
`sessions.changed` and `session.message` — for every listener (the network server sends each one to its
connections as an event frame).

They come from two places: every RunEvent the gateway emits passes through `run_event` (a delta becomes a
`chat` delta, a run's start and end change its session's row, a finished turn appends two messages), and
the methods that change a session (`sessions.patch`, `reset`, `delete`) call `session_changed`.

Nothing is built while nobody listens (a listener may say it has nobody to pass events to just now: the
server with no connection open): a one-shot `claw agent -m` pays for none of it. Listeners are
called synchronously, in emit order, and must not block (the server's only queues a frame per
connection); one that raises is logged and the others still get the event.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from claw.gateway.chat_events import ChatEvents
from claw.gateway.run_event import Phase, RunEvent, Stream
from claw.gateway.session_keys import agent_of
from claw.gateway.session_rows import assistant_message, now_ms, session_row

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway

log = logging.getLogger(__name__)

SESSION_EVENTS = frozenset({"sessions.changed", "session.message"})
"""The events a `sessions.subscribe` subscription receives (OpenClaw sends them to subscribers only)."""
Listener = Callable[[str, dict[str, Any]], None]
"""Called with an event's name (`chat`, `sessions.changed`, `session.message`) and its payload."""


class Broadcasts:
    """The gateway-wide event stream; `listen` to receive it."""

    def __init__(self, gateway: Gateway) -> None:
        self._gw = gateway
        self._listeners: list[tuple[Listener, Callable[[], bool]]] = []
        self._chat = ChatEvents()
        self._asked: dict[str, str] = {}
        """Run id → the user's message (from `accepted`), for the `session.message` of a finished turn."""

    def listen(self, listener: Listener, *, active: Callable[[], bool] = lambda: True) -> Callable[[], None]:
        """Add `listener` (`active` says whether it wants events just now); returns the function that
        removes it again."""
        entry = (listener, active)
        self._listeners.append(entry)
        return lambda: self._listeners.remove(entry) if entry in self._listeners else None

    @property
    def listening(self) -> bool:
        return any(active() for _listener, active in self._listeners)

    def publish(self, name: str, payload: dict[str, Any]) -> None:
        for listener, active in list(self._listeners):
            if not active():
                continue
            try:
                listener(name, payload)
            except Exception:
                log.exception("a listener of %s events failed", name)

    def run_event(self, event: RunEvent) -> None:
        """What `event` (just emitted by a run) means for the gateway-wide events."""
        if not self.listening:
            if event.is_terminal:  # a run that was followed while someone listened leaves nothing behind
                self._chat.forget(event.run_id)
                self._asked.pop(event.run_id, None)
            return
        chat = self._chat.payload(event)
        if chat is not None:
            self.publish("chat", chat)
        if event.stream != Stream.LIFECYCLE:
            return
        phase = event.data.get("phase")
        if phase == Phase.ACCEPTED and isinstance(message := event.data.get("message"), str):
            self._asked[event.run_id] = message
        elif phase == Phase.START:
            self.session_changed(event.session_key, "agent.run.started")
        elif event.is_terminal:
            asked = self._asked.pop(event.run_id, None)
            if phase == Phase.END:
                self._turn_messages(event, asked)
            self.session_changed(event.session_key, "agent.run.ended", ended=event.run_id)

    def session_changed(
        self, session_key: str, reason: str, *, deleted_session_id: str | None = None, ended: str | None = None
    ) -> None:
        """`sessions.changed` for `session_key`: its row as `sessions.list` shows it now (none once deleted)."""
        if not self.listening:
            return
        payload: dict[str, Any] = {"sessionKey": session_key, "agentId": agent_of(session_key), "reason": reason}
        payload["ts"] = now_ms()
        row = self._row(session_key, ended)
        if row is not None:
            payload["session"] = row
            payload["sessionId"] = row["sessionId"]
        elif deleted_session_id:
            payload["sessionId"] = deleted_session_id
        self.publish("sessions.changed", payload)

    def _turn_messages(self, event: RunEvent, asked: str | None) -> None:
        """A finished turn appended the user's message and the reply to the transcript: one
        `session.message` each, with the session's row."""
        row = self._row(event.session_key, event.run_id)
        now = now_ms()
        text = event.data.get("text")
        messages = []
        if asked is not None:
            messages.append({"role": "user", "content": [{"type": "text", "text": asked}], "timestamp": now})
        if isinstance(text, str):
            messages.append(assistant_message(text, now))
        for message in messages:
            payload: dict[str, Any] = {"sessionKey": event.session_key, "runId": event.run_id, "message": message}
            if row is not None:
                payload["session"] = row
            self.publish("session.message", payload)

    def _row(self, session_key: str, ended: str | None = None) -> dict[str, Any] | None:
        try:
            entry = self._gw.sessions(agent_of(session_key)).get(session_key)
        except Exception:  # an agent no longer configured: no row to show
            return None
        return session_row(self._gw, entry, ended=ended) if entry is not None else None
