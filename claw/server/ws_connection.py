"""One authenticated WebSocket connection: requests in, responses and events out.

Every request runs in its own task, through `Gateway.call_method`, so every method the gateway
serves in-process is served here too. At most `max_inflight_requests` run at once: the next request
waits for one to finish, and meanwhile the connection reads no further frames, so a client that
sends faster than it is served is slowed by TCP back-pressure rather than refused.
Broadcast events (presence, health, approvals, session lists) do not count against that limit:
they wait in the connection's own bounded queue (`max_queued_events`), sent in order by one task;
a client that lets it fill up is closed as too slow (1013), like one that falls behind on a run.
A request whose result names a run (`agent`, `agent.follow`) is answered twice on
its id: first the result (`{"status": "accepted", "runId"}`), then, after the run's
events went out as `agent` event frames, a final `res` with the outcome.

Frames leave through one lock, so the per-connection event `seq` grows in send order.
A slow client never stalls a run: each run it follows is read from its own bounded
bus subscription; when that overflows the connection is closed (1013) and the client
re-syncs with `chat.history` after reconnecting; when a send makes no progress at all
for `send_timeout_s` (the client read nothing), the connection is cut.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncGenerator, Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from aiohttp import WSCloseCode, WSMsgType, web

from claw.api.method import RpcMethod, required_scope
from claw.api.session_watch import SessionWatch
from claw.errors import ClawError
from claw.gateway.run_follow import run_events
from claw.gateway.runs import RunOutcome
from claw.protocol import errors as wire_errors
from claw.protocol.frames import FrameError, RequestFrame, error, event, ok, parse_request
from claw.protocol.scopes import READ, missing_scope, satisfied
from claw.protocol.version import SUBSCRIBE, UNSUBSCRIBE
from claw.server.ws_handshake import ConnectInfo
from claw.server.ws_sessions import SessionFeed
from claw.vocab.run_event import CumulativeText, RunEvent
from claw.vocab.subscription import SubscriberOverflow

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway
    from claw.server.settings import ServerSettings

log = logging.getLogger(__name__)

STREAMED_METHODS = frozenset({"agent", "agent.follow"})
"""Methods whose result may name a run; its events and a final `res` follow."""
TOOL_EVENTS_CAP = "tool-events"
"""A client that declares it (OpenClaw's TUI) is sent the `agent` events — tool calls among them — of the
turns it starts with `chat.send`; every client gets their `chat` events anyway."""
RUN_STARTING_METHODS = frozenset({"agent"})
"""Refused while the gateway drains for shutdown."""
CLOSE_TIMEOUT_S = 5.0
SLOT_POLL_S = 1.0


class WsConnection:
    """Serves one connection after its handshake; `serve()` returns when the socket closes."""

    def __init__(
        self,
        ws: web.WebSocketResponse,
        gateway: Gateway,
        info: ConnectInfo,
        settings: ServerSettings,
        draining: Callable[[], bool],
        transport: asyncio.BaseTransport | None = None,
        server_methods: Mapping[str, RpcMethod] | None = None,
    ) -> None:
        self.info = info
        self._server_methods = server_methods or {}
        """Methods the server serves itself, beside the gateway's (OpenClaw's `device.pair.*`)."""
        self._ws = ws
        self._transport = transport
        self._gw = gateway
        self._settings = settings
        self._draining = draining
        self._seq = 0
        self._send_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        """The requests being served."""
        self._slots = asyncio.Semaphore(settings.max_inflight_requests)
        self._events: asyncio.Queue[tuple[str, Any, dict[str, int] | None]] = asyncio.Queue(settings.max_queued_events)
        """Broadcast events waiting to be sent (`post_event`), drained by `_send_events`."""
        self._overflowed = False
        self._forwards: dict[str, asyncio.Task[RunOutcome | None]] = {}
        self._sent: dict[str, int] = {}
        """Run id → the last seq sent of it, while it goes: a run followed and in the session subscribed to
        is sent once (`send_agent`)."""
        self._text = CumulativeText()
        """The cumulative `text` beside each `delta` of the runs this connection is sent."""
        self.sessions = SessionFeed(gateway, self.send_agent, self._too_slow)
        self.watch = SessionWatch(gateway, self.post_event)
        """OpenClaw's `sessions.subscribe`: the session-list events (`sessions.changed`, `session.message`)."""

    async def serve(self) -> None:
        ticker = asyncio.ensure_future(self._tick())
        sender = asyncio.ensure_future(self._send_events())
        try:
            while True:
                msg = await self._ws.receive()
                if msg.type == WSMsgType.TEXT:
                    await self._on_text(msg.data)
                elif msg.type == WSMsgType.BINARY:
                    reply = error(None, wire_errors.INVALID_REQUEST, "binary frames are not supported; send JSON text")
                    await self._send(reply)
                else:  # close, or an error aiohttp already answered with a close code (1009, 1007 …)
                    break
        finally:
            pending = [ticker, sender, *self._tasks, *self._forwards.values()]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            await self.sessions.stop()
            self.watch.close()

    async def _tick(self) -> None:
        """`tick {ts}` every `tick_interval_s`: OpenClaw's clients take 2× silence for a dead gateway."""
        while not self._ws.closed:
            await asyncio.sleep(self._settings.tick_interval_s)
            await self.send_event("tick", {"ts": int(time.time() * 1000)})

    async def settle(self, timeout: float) -> None:
        """Give in-flight requests (the final answers of finished runs, above all) up to `timeout` to go out."""
        pending = [*self._tasks, *self._forwards.values()]
        if pending:
            await asyncio.wait(pending, timeout=timeout)

    async def close(self, code: int, reason: str) -> None:
        """Close politely; a peer that does not complete the close handshake in time is cut off."""
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT_S):
                async with self._send_lock:  # a frame under way (the answer to the request that closes) goes first
                    await self._ws.close(code=code, message=reason.encode()[:120])
        except TimeoutError:
            self._abort()
        except (ConnectionError, RuntimeError):
            pass

    def _abort(self) -> None:
        """Drop the connection at once, unsent data included (a graceful close would wait for the peer)."""
        if isinstance(self._transport, asyncio.WriteTransport):
            self._transport.abort()

    def post_event(self, name: str, payload: Any, state_version: dict[str, int] | None = None) -> None:
        """Queue an event frame without waiting (broadcasts); a client that let the queue fill is closed."""
        try:
            self._events.put_nowait((name, payload, state_version))
        except asyncio.QueueFull:
            if not self._overflowed:
                self._overflowed = True
                log.warning("connection %s fell behind on broadcast events; closing it", self.info.conn_id)
                self._spawn(self._too_slow())

    async def _send_events(self) -> None:
        while True:
            name, payload, state_version = await self._events.get()
            if not await self.send_event(name, payload, state_version):
                return

    async def send_event(self, name: str, payload: Any, state_version: dict[str, int] | None = None) -> bool:
        async with self._send_lock:
            self._seq += 1
            return await self._write(event(name, payload, self._seq, state_version))

    async def send_agent(self, item: RunEvent) -> bool:
        """Send a run event as an `agent` frame unless this connection already had it; False once closed."""
        async with self._send_lock:
            if item.seq <= self._sent.get(item.run_id, 0):
                return True
            if item.is_terminal:
                self._sent.pop(item.run_id, None)  # a later `agent.follow` of the run replays it whole
            else:
                self._sent[item.run_id] = item.seq
            self._seq += 1
            return await self._write(event("agent", self._text.wire(item), self._seq))

    async def _too_slow(self) -> None:
        await self.close(WSCloseCode.TRY_AGAIN_LATER, "client too slow: events dropped; reconnect, fetch chat.history")

    async def _send(self, text: str) -> bool:
        async with self._send_lock:
            return await self._write(text)

    async def _write(self, text: str) -> bool:
        if self._ws.closed:
            return False
        if self._fits(text):
            # The frame fits under the transport's high-water mark: the send cannot wait on the client, so it
            # needs no watch (a task and a timed wait per frame were a third of a broadcast's cost).
            try:
                await self._ws.send_str(text)
            except (ConnectionError, RuntimeError):
                return False
            return True
        sending = asyncio.ensure_future(self._ws.send_str(text))
        try:
            while True:
                # A client that reads slowly (or a process too busy to serve it quickly) is waited for; only one
                # that took no bytes at all for a whole `send_timeout_s` is not.
                buffered = self._buffered()
                done, _ = await asyncio.wait({sending}, timeout=self._settings.send_timeout_s)
                if done:
                    break
                if self._buffered() >= buffered:
                    # The pipe is full and stayed full: a close frame would not get through either, so cut it.
                    log.warning(
                        "connection %s: client did not read for %g s; dropping it",
                        self.info.conn_id,
                        self._settings.send_timeout_s,
                    )
                    sending.cancel()
                    self._abort()
                    return False
            sending.result()
        except (ConnectionError, RuntimeError):
            return False
        finally:
            if not sending.done():
                sending.cancel()
        return True

    def _fits(self, text: str) -> bool:
        """Whether `text` as a frame goes into the socket buffer without taking it past its high-water mark,
        so that the send does not wait for the client to read (asyncio pauses writing only past that mark)."""
        transport = self._transport
        if not isinstance(transport, asyncio.WriteTransport):
            return False
        size = len(text) if text.isascii() else 4 * len(text)  # UTF-8 bytes, at most
        return transport.get_write_buffer_size() + size + 14 <= transport.get_write_buffer_limits()[1]

    def _buffered(self) -> int:
        """Bytes waiting in this connection's socket buffer on our side."""
        if isinstance(self._transport, asyncio.WriteTransport):
            return self._transport.get_write_buffer_size()
        return 0

    def _spawn(self, coro: Any, on_done: Callable[[], Any] | None = None) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        if on_done is not None:
            task.add_done_callback(lambda _: on_done())

    async def _on_text(self, data: str) -> None:
        try:
            frame = parse_request(data)
        except FrameError as exc:
            await self._send(error(exc.frame_id, exc.code, exc.message))
            return
        # Back-pressure: no further frame is read until a request finishes (looking now and then whether the
        # socket closed meanwhile: the loop that would notice is this one).
        while True:
            try:
                async with asyncio.timeout(SLOT_POLL_S):
                    await self._slots.acquire()
                break
            except TimeoutError:
                if self._ws.closed:
                    return
        self._spawn(self._handle(frame), self._slots.release)

    async def _handle(self, frame: RequestFrame) -> None:
        name = frame.method
        if name == "connect":
            await self._send(error(frame.id, wire_errors.INVALID_REQUEST, "already connected"))
            return
        if name in (SUBSCRIBE, UNSUBSCRIBE):  # the connection's own methods (claw/server/ws_sessions.py)
            if not satisfied(READ, self.info.scopes):
                details = {"code": wire_errors.MISSING_SCOPE, "missingScope": READ, "requiredScopes": [READ]}
                await self._send(error(frame.id, wire_errors.FORBIDDEN, f"missing scope: {READ}", details))
                return
            try:
                await self._send(ok(frame.id, await self.sessions.call(name, frame.params)))
            except ClawError as exc:
                await self._send(error(frame.id, wire_errors.code_for(exc), exc.message, wire_errors.details_for(exc)))
            return
        served = self._server_methods.get(name)
        if served is None and name not in self._gw.methods:
            await self._send(error(frame.id, wire_errors.INVALID_REQUEST, f"unknown method: {name}"))
            return
        params = frame.params if isinstance(frame.params, dict) else None
        needed = required_scope(served if served is not None else self._gw.methods.get(name), name, params)
        missing = missing_scope(needed, self.info.scopes)
        if missing is not None:
            details = {"code": wire_errors.MISSING_SCOPE, "missingScope": missing, "requiredScopes": [missing]}
            await self._send(error(frame.id, wire_errors.FORBIDDEN, f"missing scope: {missing}", details))
            return
        if name in RUN_STARTING_METHODS and self._draining():
            await self._send(error(frame.id, wire_errors.UNAVAILABLE, "the gateway is shutting down"))
            return
        try:
            if served is not None:
                payload = await served(frame.params)
            elif name == "sessions.subscribe":  # the gateway method answers for a caller without a connection
                payload = await self.watch.subscribe(frame.params, channel=self.info.channel)
            elif name == "sessions.unsubscribe":
                payload = self.watch.unsubscribe()
            else:
                payload = await self._gw.call_method(name, frame.params, channel=self.info.channel)
        except ClawError as exc:
            await self._send(error(frame.id, wire_errors.code_for(exc), exc.message, wire_errors.details_for(exc)))
            return
        except (TypeError, ValueError) as exc:
            await self._send(error(frame.id, wire_errors.INVALID_REQUEST, f"invalid parameters for {name}: {exc}"))
            return
        except Exception:
            log.exception("connection %s: method %s failed", self.info.conn_id, name)
            await self._send(error(frame.id, wire_errors.INTERNAL, "internal error; see the gateway log"))
            return
        await self._send(ok(frame.id, payload))
        run_id = payload.get("runId") if isinstance(payload, dict) else None
        if not isinstance(run_id, str):
            return
        if name in STREAMED_METHODS:
            await self._follow(frame.id, run_id)
        elif name == "chat.send" and TOOL_EVENTS_CAP in self.info.caps and payload.get("status") == "started":
            self._forwarding(run_id)  # as OpenClaw: the sender of a turn that asked for tool events gets them

    async def _follow(self, frame_id: str, run_id: str) -> None:
        """Forward the run's events (once per connection, however many requests name it), then the outcome."""
        outcome = await asyncio.shield(self._forwarding(run_id))
        if outcome is not None:
            run = self._gw.runs.get(run_id)
            await self._send(ok(frame_id, outcome.to_wire(run_id, run.session_id if run is not None else None)))

    def _forwarding(self, run_id: str) -> asyncio.Task[RunOutcome | None]:
        """The task sending this connection the run's `agent` events, started if none runs."""
        task = self._forwards.get(run_id)
        if task is None or task.done():
            task = asyncio.ensure_future(self._forward(run_id))
            self._forwards[run_id] = task
            task.add_done_callback(lambda t: self._forwards.pop(run_id) if self._forwards.get(run_id) is t else None)
        return task

    async def _forward(self, run_id: str) -> RunOutcome | None:
        events = cast(AsyncGenerator[RunEvent, None], run_events(self._gw, run_id))
        try:
            async with contextlib.aclosing(events):
                async for item in events:
                    if not await self.send_agent(item):
                        return None
        except SubscriberOverflow:
            log.warning("connection %s fell behind on run %s; closing it", self.info.conn_id, run_id)
            await self._too_slow()
            return None
        except ClawError:  # the run is unknown (or long gone)
            return None
        run = self._gw.runs.get(run_id)
        return await run.wait() if run is not None else None
