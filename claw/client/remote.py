"""`RemoteClient`: the `GatewayClient` API over a running gateway's WebSocket protocol.

    client = await RemoteClient.connect("ws://127.0.0.1:18789/", token=token)
    handle = await client.run("hello")                 # returns once the gateway accepted it
    async for event in client.events(handle.run_id):   # RunEvents in seq order, terminal one last
        ...
    rows = await client.call("sessions.list")
    await client.close()

The same API as `LocalClient`, so callers do not care which one they hold:

- `call(method, **params)`: any method the gateway serves (`hello["features"]["methods"]`).
  Errors raise what `LocalClient` raises: `UsageError` (bad params, unknown method),
  `NotFoundError`, `ConfigError`; `GatewayUnavailable` when the connection is gone or
  a call gets no answer in `call_timeout`; `RemoteCallError` (with `.code`) otherwise.
- `run(message, *, agent_id, session_key, idempotency_key, model)` → `RunHandle`. An
  idempotency key is generated when none is given, so a resent request never starts a
  second run. On OpenClaw's own gateway a slash command goes with `chat.send`, as its TUI
  sends one, and comes back as the command's reply (`claw.client.openclaw_chat`).
- `events(run_id)`: the run's events, from its first, ending after the terminal
  lifecycle event. For a run this client started they are buffered from the moment
  `run` returns (call `events` for each run you start; at most `MAX_BUFFERED_RUNS`
  unread runs are kept); for any other run it attaches with `agent.follow`.
- `session_events(session_key, *, others)`: every event of every run in the session, whoever
  started it (`sessions.messages.subscribe`; one per connection, a new one ends the one before).
- `close()`.

Beyond `LocalClient`: `hello` (the server's hello: version, methods, limits), an
`approver` (a client passing one opts into exec approvals and answers
`exec.approval.requested` questions with it; `set_approver` swaps it), `closed`
and `close_reason`. Light to import: the `websockets` client and the standard library,
never openai, textual or aiohttp. Plain `ws://` is refused for non-loopback hosts
(the token would travel in clear); use `wss://` there, or `allow_insecure=True`.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import itertools
import json
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from claw import __version__
from claw.client import openclaw_chat
from claw.client.device_identity import DeviceIdentity, default_data_dir
from claw.client.protocol import RunHandle
from claw.errors import GatewayUnavailable, NotFoundError, UsageError
from claw.gateway.event_bus import session_interest
from claw.protocol.connect import connect_request
from claw.protocol.errors import error_from
from claw.protocol.seen_events import SeenEvents
from claw.protocol.version import PROTOCOL_VERSION, SUBSCRIBE, UNSUBSCRIBE
from claw.redact import redact_url
from claw.tools.base import ApprovalRequest, Decision
from claw.vocab.command_syntax import parse_command
from claw.vocab.run_event import RunEvent

log = logging.getLogger(__name__)

Approver = Callable[[ApprovalRequest], Awaitable[Decision | None]]
STREAMED_METHODS = frozenset({"agent", "agent.follow"})
MAX_BUFFERED_RUNS = 256
MAX_FRAME_BYTES = 256 * 1024 * 1024


class GatewayNotListening(GatewayUnavailable):
    """Nothing accepts connections at the address (as opposed to a gateway that refused us)."""


class RemoteClient:
    """A connection to a gateway; create it with `await RemoteClient.connect(url, token)`."""

    def __init__(self, ws: Any, *, approver: Approver | None, call_timeout: float) -> None:
        self._ws = ws
        self._approver = approver
        self._call_timeout = call_timeout
        self._ids = itertools.count(1)
        self._pending: dict[str, tuple[str, asyncio.Future[dict[str, Any]]]] = {}
        self._runs: dict[str, asyncio.Queue[RunEvent | None]] = {}
        self._asking: dict[str, asyncio.Task[None]] = {}
        self._reader: asyncio.Task[None] | None = None
        self.hello: dict[str, Any] = {}
        self.close_reason: str | None = None
        self.url = ""
        """The gateway's address, credentials redacted (`where`)."""
        self._session_feed: _SessionFeed | None = None
        self._chat_ends: dict[str, asyncio.Future[dict[str, Any]]] = {}
        """Slash commands sent with `chat.send` to OpenClaw's gateway, by run id: the `chat` event ending each."""
        self.command_timeout = 300.0
        """How long such a command may take to answer (OpenClaw's `/status` takes seconds)."""

    @classmethod
    async def connect(
        cls,
        url: str,
        token: str,
        *,
        client_version: str = __version__,
        channel: str = "cli",
        approver: Approver | None = None,
        open_timeout: float = 5.0,
        call_timeout: float = 30.0,
        allow_insecure: bool = False,
        device: DeviceIdentity | None | bool = True,
        scopes: list[str] | None = None,
    ) -> RemoteClient:
        """Open the socket and do protocol 4's handshake (wait for `connect.challenge`, answer with `connect`
        signed by this machine's device key); raise `GatewayUnavailable` (or a subclass) if that fails.

        `channel` says what the client is (`cli`, `tui`, or another program), sent as OpenClaw's
        `client.id`/`client.mode`; `device` is this machine's identity by default (`False`: connect without
        one, which only a loopback gateway serves); `scopes` defaults to every operator scope."""
        _check_url(url, allow_insecure)
        shown = redact_url(url)  # what errors print: never a password in the URL's userinfo
        from websockets.asyncio.client import connect as ws_connect
        from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

        try:
            ws = await ws_connect(
                url,
                open_timeout=open_timeout,
                max_size=MAX_FRAME_BYTES,
                compression=None,
                close_timeout=2,
                user_agent_header=f"claw/{__version__}",
                additional_headers={"Authorization": f"Bearer {token}"},  # lifts the 64 KiB cap before connect
            )
        except InvalidStatus as exc:
            status = exc.response.status_code
            raise GatewayUnavailable(
                f"the gateway at {shown} refused the connection: {_http_reason(exc.response.body)} (HTTP {status})"
            ) from None
        except (OSError, InvalidHandshake, TimeoutError) as exc:
            refused = isinstance(exc, OSError) and exc.errno in (errno.ECONNREFUSED, errno.ECONNRESET)
            kind = GatewayNotListening if refused else GatewayUnavailable
            raise kind(f"cannot connect to the gateway at {shown}: {_reason(exc)}") from None
        client = cls(ws, approver=approver, call_timeout=call_timeout)
        client.url = shown
        identity = DeviceIdentity.load_or_create(default_data_dir()) if device is True else device or None
        try:
            try:
                async with asyncio.timeout(open_timeout):
                    challenge = await _challenge(ws)
            except TimeoutError:
                await ws.close()
                raise GatewayUnavailable(
                    f"the gateway at {shown} sent no connect.challenge within {open_timeout:g} s: it does not speak "
                    f"protocol {PROTOCOL_VERSION} (an older claw gateway? upgrade it)"
                ) from None
            async with asyncio.timeout(open_timeout):
                frame = connect_request(
                    token, channel, client_version, approver is not None, identity, challenge, scopes
                )
                await ws.send(json.dumps(frame))
                reply = await _connect_reply(ws)
        except (ConnectionClosed, TimeoutError, ValueError) as exc:
            await ws.close()
            raise GatewayUnavailable(f"the gateway at {shown} did not complete the handshake: {_reason(exc)}") from None
        if not reply.get("ok"):
            await ws.close()
            err = reply.get("error") or {}
            raise GatewayUnavailable(f"the gateway at {shown} refused the connection: {err.get('message', 'unknown')}")
        client.hello = reply.get("payload") or {}
        client._reader = asyncio.create_task(client._read(), name="remote-client-reader")
        return client

    @property
    def closed(self) -> bool:
        return self.close_reason is not None

    def set_approver(self, approver: Approver | None) -> None:
        """Swap the approver (only clients that connected with one receive questions)."""
        self._approver = approver

    async def call(self, method: str, **params: Any) -> Any:
        timeout = self._call_timeout
        if method == "agent.wait":
            timeout = float(params.get("timeoutMs", 30_000)) / 1000 + self._call_timeout
        return await self._request(method, params, timeout)

    async def run(
        self,
        message: str,
        *,
        agent_id: str = "main",
        session_key: str | None = None,
        idempotency_key: str | None = None,
        model: str | None = None,
    ) -> RunHandle:
        params: dict[str, Any] = {
            "message": message,
            "agentId": agent_id,
            "idempotencyKey": idempotency_key or uuid.uuid4().hex,
        }
        if session_key is not None:
            params["sessionKey"] = session_key
        if model is not None:
            params["model"] = model
        if parse_command(message) is not None and not openclaw_chat.is_claw_gateway(self.hello):
            return await self._openclaw_command(params, session_key or f"agent:{agent_id}:main")
        answer = await self._request("agent", params, self._call_timeout)
        return RunHandle.from_wire(answer, agent_id=agent_id, session_key=session_key or "")

    async def _openclaw_command(self, params: dict[str, Any], session_key: str) -> RunHandle:
        """A slash command on OpenClaw's gateway, sent as its TUI sends one (see `claw.client.openclaw_chat`);
        its answer is the command's reply, as claw's gateway gives one."""
        agent_id, key = str(params["agentId"]), str(params["idempotencyKey"])
        ended = self._chat_ends[key] = asyncio.get_running_loop().create_future()  # OpenClaw's run id is the key
        try:
            chat = {"sessionKey": session_key, "message": params["message"], "idempotencyKey": key}
            answer = await self._request("chat.send", chat, self._call_timeout)
            if not isinstance(answer, dict) or answer.get("status") not in openclaw_chat.ACKED:
                return RunHandle.from_wire(answer, agent_id=agent_id, session_key=session_key)
            run_id = str(answer.get("runId") or key)
            if run_id != key:
                self._chat_ends[run_id] = ended
            try:
                async with asyncio.timeout(self.command_timeout):
                    payload = await ended
            except TimeoutError:
                raise GatewayUnavailable(
                    f"the gateway did not answer {params['message'].split()[0]} within {self.command_timeout:g} s"
                ) from None
        finally:
            for run, future in list(self._chat_ends.items()):
                if future is ended:
                    del self._chat_ends[run]
            if ended.done() and not ended.cancelled():
                ended.exception()  # a connection lost before the wait: said by `_request` already
        reply, error = openclaw_chat.reply_of(payload)
        return RunHandle("command", agent_id, session_key, reply=reply, error=error)

    async def events(self, run_id: str) -> AsyncIterator[RunEvent]:
        queue = self._runs.get(run_id)
        if queue is None:
            queue = self._buffer(run_id)
            try:
                await self._request("agent.follow", {"runId": run_id}, self._call_timeout)
            except BaseException:
                self._runs.pop(run_id, None)
                raise
        last = 0
        try:
            while True:
                item = await queue.get()
                if item is None:
                    raise GatewayUnavailable(f"lost the gateway connection during run {run_id}: {self.close_reason}")
                if item.seq <= last:
                    continue
                last = item.seq
                yield item
                if item.is_terminal:
                    return
        finally:
            if self._runs.get(run_id) is queue:
                del self._runs[run_id]

    async def session_events(self, session_key: str, *, others: bool = False) -> AsyncIterator[RunEvent]:
        """Every event of every run in `session_key` from now on (see `GatewayClient.session_events`)."""
        if self._session_feed is not None:
            self._session_feed.queue.put_nowait(_ENDED)  # one per connection: the one before ends
        feed = self._session_feed = _SessionFeed(session_key, others)
        try:
            await self._request(SUBSCRIBE, {"key": session_key, "others": others}, self._call_timeout)
            while True:
                item = await feed.queue.get()
                if item is _ENDED:
                    return
                if item is None:
                    raise GatewayUnavailable(f"lost the gateway connection: {self.close_reason}")
                assert isinstance(item, RunEvent)
                yield item
        finally:
            if self._session_feed is feed:
                self._session_feed = None
                if not self.closed:
                    with contextlib.suppress(Exception):
                        await self._request(UNSUBSCRIBE, {"key": session_key}, self._call_timeout)

    @property
    def where(self) -> str:
        return self.url

    async def close(self) -> None:
        await self._ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        for task in list(self._asking.values()):
            task.cancel()

    # --- internals -------------------------------------------------------------------------------

    async def _request(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        if self.closed:
            raise GatewayUnavailable(f"the gateway connection is closed ({self.close_reason})")
        frame_id = str(next(self._ids))
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[frame_id] = (method, future)
        try:
            await self._ws.send(json.dumps({"type": "req", "id": frame_id, "method": method, "params": params}))
            async with asyncio.timeout(timeout):
                frame = await future
        except TimeoutError:
            raise GatewayUnavailable(f"the gateway did not answer {method} within {timeout:g} s") from None
        except OSError as exc:
            raise GatewayUnavailable(f"lost the gateway connection: {_reason(exc)}") from None
        finally:
            self._pending.pop(frame_id, None)
        if not frame.get("ok"):
            err = frame.get("error") or {}
            raise error_from(err)
        return frame.get("payload")

    def _buffer(self, run_id: str) -> asyncio.Queue[RunEvent | None]:
        queue = self._runs.get(run_id)
        if queue is None:
            queue = self._runs[run_id] = asyncio.Queue()
            while len(self._runs) > MAX_BUFFERED_RUNS:
                del self._runs[next(iter(self._runs))]
        return queue

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        reason = "closed"
        try:
            async for raw in self._ws:
                try:
                    frame = json.loads(raw)
                except ValueError:
                    log.warning("ignoring a frame from the gateway that is not JSON")
                    continue
                if frame.get("type") == "res":
                    self._on_res(frame)
                elif frame.get("type") == "event":
                    self._on_event(frame.get("event"), frame.get("payload"))
            if self._ws.close_code is not None:
                reason = f"{self._ws.close_code} {self._ws.close_reason or ''}".strip()
        except ConnectionClosed as exc:
            reason = _reason(exc)
        finally:
            self.close_reason = reason
            for future in [*(f for _m, f in self._pending.values()), *self._chat_ends.values()]:
                if not future.done():
                    future.set_exception(GatewayUnavailable(f"the gateway closed the connection ({reason})"))
            for queue in self._runs.values():
                queue.put_nowait(None)
            if self._session_feed is not None:
                self._session_feed.queue.put_nowait(None)

    def _on_res(self, frame: dict[str, Any]) -> None:
        entry = self._pending.get(str(frame.get("id")))
        if entry is None:
            return  # the final `res` of a streamed request: its content came as the terminal event
        method, future = entry
        payload = frame.get("payload")
        if frame.get("ok") and method in STREAMED_METHODS and isinstance(payload, dict) and payload.get("runId"):
            self._buffer(payload["runId"])  # before any of the run's events, which follow this frame
        if not future.done():
            future.set_result(frame)

    def _on_event(self, name: Any, payload: Any) -> None:
        if name == "agent" and isinstance(payload, dict):
            event = RunEvent.from_wire(payload)
            queue = self._runs.get(event.run_id)
            if queue is not None:
                queue.put_nowait(event)
            feed = self._session_feed
            if feed is not None and feed.wants(event):
                feed.queue.put_nowait(event)
        elif name == "chat" and isinstance(payload, dict) and payload.get("state") in openclaw_chat.ENDED:
            ended = self._chat_ends.get(str(payload.get("runId")))
            if ended is not None and not ended.done():
                ended.set_result(payload)
        elif name == "exec.approval.requested" and isinstance(payload, dict) and self._approver is not None:
            request_id = str(payload.get("id"))
            task = asyncio.create_task(self._answer(request_id, payload))
            self._asking[request_id] = task
            task.add_done_callback(lambda _t: self._asking.pop(request_id, None))
        elif name == "exec.approval.resolved" and isinstance(payload, dict):
            asking = self._asking.get(str(payload.get("id")))
            if asking is not None:
                asking.cancel()

    async def _answer(self, request_id: str, payload: dict[str, Any]) -> None:
        approver = self._approver
        if approver is None:
            return
        asked = payload.get("request")  # OpenClaw's shape: the question's fields under `request`
        asked = asked if isinstance(asked, dict) else {}
        request = ApprovalRequest(
            request_id,
            str(asked.get("agentId", "")),
            str(asked.get("sessionKey", "")),
            str(asked.get("command", "")),
            str(asked.get("cwd", "")),
            str(asked.get("reason", "")),
            str(asked.get("tool", "exec")),
            asked.get("allowAlways") is not False,
        )
        try:
            decision = await approver(request)
            if decision is not None:
                await self.call("exec.approval.resolve", id=request_id, decision=decision)
        except NotFoundError:
            pass  # answered elsewhere first
        except Exception:
            log.exception("answering exec approval %s failed", request_id)


_ENDED = object()


class _SessionFeed:
    """The events of one `session_events` subscription, as they come off the socket."""

    def __init__(self, session_key: str, others: bool) -> None:
        self.queue: asyncio.Queue[object] = asyncio.Queue()
        self._interest = session_interest(session_key, others=others)
        self._seen = SeenEvents()

    def wants(self, event: RunEvent) -> bool:
        """The events the subscription asked for (the server's filter, again: a followed run's events come
        on the same socket), each once (`SeenEvents`)."""
        return self._interest(event) and self._seen.is_new(event)


async def _challenge(ws: Any) -> dict[str, Any]:
    """The gateway's first frame, `connect.challenge`."""
    while True:
        frame = json.loads(await ws.recv())
        if isinstance(frame, dict) and frame.get("type") == "event" and frame.get("event") == "connect.challenge":
            payload = frame.get("payload")
            if not isinstance(payload, dict) or not isinstance(payload.get("nonce"), str):
                raise ValueError("malformed connect.challenge")
            return payload


async def _connect_reply(ws: Any) -> dict[str, Any]:
    while True:
        frame = json.loads(await ws.recv())
        if isinstance(frame, dict) and frame.get("type") == "res" and frame.get("id") == "connect":
            return frame


def _check_url(url: str, allow_insecure: bool) -> None:
    from claw.protocol.loopback import is_loopback

    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise UsageError(f"invalid gateway URL {redact_url(url)!r}: expected ws://HOST:PORT/ or wss://HOST:PORT/")
    if parts.scheme == "ws" and not allow_insecure and not is_loopback(parts.hostname):
        raise UsageError(
            f"refusing to send the gateway token over plain ws:// to {parts.hostname}: use wss:// "
            "(for example behind a TLS proxy), or a loopback address"
        )


def _http_reason(body: bytes | bytearray | None) -> str:
    try:
        return str(json.loads(body or b"")["error"]["message"])
    except (ValueError, KeyError, TypeError):
        return "refused"


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__
