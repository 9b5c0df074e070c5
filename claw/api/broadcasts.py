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

from claw.api.chat_events import ChatEvents
from claw.api.session_rows import assistant_message, now_ms, session_row
from claw.gateway.broadcaster import Listener
from claw.vocab.run_event import Phase, RunEvent, Stream
from claw.vocab.session_keys import agent_of

if TYPE_CHECKING:
    from claw.api.host import ApiHost

log = logging.getLogger(__name__)

TURN_SCAN = 400
"""How far back from a transcript's end a finished turn's own entries are looked for."""
SESSION_EVENTS = frozenset({"sessions.changed", "session.message"})
"""The events a `sessions.subscribe` subscription receives (OpenClaw sends them to subscribers only)."""


class Broadcasts:
    """The gateway-wide event stream; `listen` to receive it."""

    def __init__(self, gateway: ApiHost) -> None:
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
        stored = self._stored(event)
        messages = []
        if asked is not None:
            user = {"role": "user", "content": [{"type": "text", "text": asked}], "timestamp": now}
            messages.append(_identified(user, event.run_id, stored.get("user")))
        if isinstance(text, str):
            messages.append(_identified(assistant_message(text, now), event.run_id, stored.get("assistant")))
        for message in messages:
            payload: dict[str, Any] = {"sessionKey": event.session_key, "runId": event.run_id, "message": message}
            if row is not None:
                payload["session"] = row
            self.publish("session.message", payload)

    def _stored(self, event: RunEvent) -> dict[str, tuple[str, int]]:
        """The transcript ids and places (1-based) of the turn's user message and final reply, by role, as
        the transcript's read cache has them (a stat, no parsing; nothing when it must be read anew)."""
        try:
            store = self._gw.sessions(agent_of(event.session_key))
            entry = store.get(event.session_key)
            entries = (store.transcript(entry).read_cached() if entry is not None else None) or []
        except Exception:  # an agent no longer configured, a transcript gone: the messages go without ids
            return {}
        found: dict[str, tuple[str, int]] = {}
        first = max(0, len(entries) - TURN_SCAN)
        for seq in range(len(entries), first, -1):  # newest first: the reply, then its tool steps, then the ask
            stored = entries[seq - 1]
            role, entry_id = stored.get("role"), stored.get("id")
            if stored.get("runId") != event.run_id or role not in ("user", "assistant") or role in found:
                continue
            if isinstance(entry_id, str) and (role == "user" or stored.get("content")):  # not a tool-call step
                found[role] = (entry_id, seq)
        return found

    def _row(self, session_key: str, ended: str | None = None) -> dict[str, Any] | None:
        try:
            entry = self._gw.sessions(agent_of(session_key)).get(session_key)
        except Exception:  # an agent no longer configured: no row to show
            return None
        return session_row(self._gw, entry, ended=ended) if entry is not None else None


def _identified(message: dict[str, Any], run_id: str, stored: tuple[str, int] | None) -> dict[str, Any]:
    """`message` with its identity where OpenClaw's clients read it (`__openclaw {id, seq, runId}`, as
    `chat.history` gives each stored message): without it OpenClaw's TUI shows the turn twice."""
    identity: dict[str, Any] = {"runId": run_id}
    if stored is not None:
        identity["id"], identity["seq"] = stored
    return {**message, "__openclaw": identity}
