"""`GatewayServer`: the gateway's network face, one port for WebSocket RPC (at `/`) and HTTP.

It is a `GatewayService`, started inside the gateway's event loop:

    server = GatewayServer(ServerSettings(token=token, port=0))
    async with build_gateway(paths, config, services=[server]) as gw:   # claw.compose
        print(server.url)            # ws://127.0.0.1:<port>/

Fail closed: `ServerSettings` refuses a non-loopback bind without a token; browser
`Origin`s not on the allowlist, and other sites' pages (`Sec-Fetch-Site`), get 403 on every
path but `/health`; `/v1/*` needs `Authorization: Bearer <token>`. Wrong credentials
(WebSocket, HTTP, and those a capability's route reports: `claw.credential_report`)
are rate limited per address and credential, loopback included, and a request with no
credential is refused without counting, so no lockout can refuse the right token
(`claw.server.auth_limiter`). WebSocket frames are capped at 64 KiB until `connect` proves who is
sending (OpenClaw's protocol 4: claw/server/ws_handshake.py), then at `max_payload_bytes`; an upgrade
request carrying the bearer gets the full cap at once. Tokens never reach
a log line: the access log records the method, the path without its query string, the
status and the time. Browser pages (claw's web chat at `/chat/`, a Control UI build at `/` when
`gateway.controlUi.root` names one: claw/web/) go to other hosts only with the token.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from typing import TYPE_CHECKING, Any

from aiohttp import WSCloseCode, web
from aiohttp.abc import AbstractAccessLogger

from claw.api.method import RpcMethod
from claw.credential_report import reported_bad_credential
from claw.errors import ClawError
from claw.protocol.frames import encoded
from claw.server import page_access
from claw.server.auth import bearer_credential, browser_refusal, own_origins, page_credential, tokens_match
from claw.server.device_pairing import DevicePairing
from claw.server.device_watch import DeviceWatch
from claw.server.devices import DeviceRegistry
from claw.server.http_api import HttpApi, error_response
from claw.server.openai_wire import WireError
from claw.server.runtime_file import local_url
from claw.server.settings import PRE_AUTH_MAX_BYTES, ServerSettings
from claw.server.ws_approvals import ApprovalRelay
from claw.server.ws_connection import WsConnection
from claw.server.ws_handshake import ConnectInfo, Peer, handshake, hello
from claw.vocab.session_keys import main_session_key
from claw.web.chat_page import ChatPage
from claw.web.control_ui import ControlUi

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway

log = logging.getLogger(__name__)

BROADCAST_TO_ALL = frozenset({"chat"})
"""The gateway-wide events every connection gets (the others go to subscribers: `SESSION_EVENTS`)."""
SETTLE_SECONDS = 2.0
"""At stop, how long in-flight answers may take to go out before the sockets close."""


class _AccessLogger(AbstractAccessLogger):
    """One line per request, without query strings or headers (where secrets travel)."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        self.logger.info("%s %s %s %.1fms", request.method, request.path, response.status, time * 1000)


class GatewayServer:
    """WebSocket + HTTP on one port; see the module docstring."""

    name = "gateway-server"

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.port: int | None = None
        self.draining = False
        """Set when shutdown begins: new runs are refused, running ones finish."""
        self.connections: set[WsConnection] = set()
        self._gateway: Gateway | None = None
        self._unlisten: Any = None
        """Stops the `chat` events reaching the connections (`_broadcast`), once started."""
        self._runner: web.AppRunner | None = None
        self._relay = ApprovalRelay(settings.approval_timeout_s)
        self._pending_handshakes = 0
        self._versions = {"presence": 0, "health": 0}
        """`stateVersion`: bumped with each `presence` (a client came or went) and `health` event."""
        self._health_task: asyncio.Task[None] | None = None
        self._devices: DeviceRegistry | None = None
        self._device_watch: DeviceWatch | None = None
        self._watch_task: asyncio.Task[None] | None = None
        self._server_methods: dict[str, RpcMethod] = {}
        """Served by the server itself, beside the gateway's: OpenClaw's `device.pair.*` (it holds the sockets a
        removal closes) and `plugin.approval.*` (its relay holds the open questions)."""
        self._control_ui: ControlUi | None = None
        self._origins: tuple[str, ...] = settings.allowed_origins
        """The allowlist plus, once listening, this server's own loopback origins (the pages it serves)."""

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the server has not started")
        return local_url(self.settings.bind, self.port)

    async def start(self, gateway: Gateway) -> None:
        self._gateway = gateway
        self._devices = DeviceRegistry.for_data_dir(gateway.paths.data_dir)
        watch = DeviceWatch(self._devices, lambda: list(self.connections), self.settings.devices_check_s)
        self._device_watch = watch
        pairing = DevicePairing(self._devices, watch.cut_soon, self._device_connected)
        self._server_methods = {**pairing.methods(), **self._relay.methods(gateway.approvals)}
        app = web.Application(client_max_size=self.settings.max_body_bytes, middlewares=[self._guard])
        app.router.add_get("/", self._websocket)
        HttpApi(gateway, self.settings.max_body_bytes).add_routes(app.router)
        for route in gateway.http_routes():  # capabilities' routes, e.g. channels' POST /hooks/<name>
            app.router.add_route(route.method, route.path, route.handler)
        root = self.settings.control_ui_root
        self._control_ui = None if root is None else ControlUi(root, gateway.config.agent_ids[0])
        ChatPage(owns_bare=self._control_ui is None).add_routes(app.router)
        if self._control_ui is not None:
            self._control_ui.add_routes(app.router)  # its catch-all last: every other route matches first
        runner = web.AppRunner(
            app,
            handle_signals=False,
            access_log_class=_AccessLogger,
            access_log=logging.getLogger("claw.gateway.access"),
            shutdown_timeout=2.0,
            # aiohttp's keep-alive timer runs from the connection's start and between requests, and bytes that
            # do not complete a request do not reset it: it is the header timeout that drops slowloris sockets.
            keepalive_timeout=self.settings.handshake_timeout_s,
        )
        await runner.setup()
        site = web.TCPSite(runner, self.settings.bind, self.settings.port, backlog=1024)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            where = f"{self.settings.bind}:{self.settings.port}"
            raise ClawError(f"cannot listen on {where}: {exc.strerror or exc} (see `claw gateway status`)") from None
        self._runner = runner
        self.port = _bound_port(runner, self.settings.port)
        self._origins = (*self.settings.allowed_origins, *own_origins(self.settings.bind, self.port))
        gateway.approvals.set_approver(self._relay, name="remote-clients")
        self._unlisten = gateway.broadcasts.listen(self._broadcast, active=lambda: bool(self.connections))
        self._health_task = asyncio.create_task(self._health_events(), name="gateway-health-events")
        self._watch_task = asyncio.create_task(watch.run(), name="gateway-device-watch")
        log.info("listening on %s (WebSocket at /, HTTP /health and /v1)", self.url)

    async def stop(self) -> None:
        self.draining = True
        for task in (self._health_task, self._watch_task):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        self._health_task = self._watch_task = None
        if self._gateway is not None:
            self._gateway.approvals.set_approver(None, name="remote-clients")
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        if self.connections:  # let the last events and final answers of ended runs reach their clients
            await asyncio.wait([asyncio.ensure_future(c.settle(SETTLE_SECONDS)) for c in self.connections])
        for conn in list(self.connections):
            await conn.send_event("shutdown", {"reason": "the gateway is stopping"})
            await conn.close(1001, "gateway shutting down")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def _device_connected(self, device_id: str) -> bool:
        return any(c.info.device_id == device_id for c in self.connections)

    def _presence_changed(self) -> None:
        """A client came or went: every connection gets OpenClaw's `presence` snapshot, versioned."""
        self._versions["presence"] += 1
        payload = encoded({"presence": [c.info.presence() for c in self.connections]})
        versions = dict(self._versions)
        for conn in list(self.connections):
            conn.post_event("presence", payload, versions)

    async def _health_events(self) -> None:
        """`health` (the `health` method's answer) to every connection each `health_interval_s`."""
        while True:
            await asyncio.sleep(self.settings.health_interval_s)
            if not self.connections or self._gateway is None:
                continue
            try:
                snapshot = await self._gateway.call_method("health", {}, channel="ws")
            except ClawError as exc:
                log.info("health snapshot for the clients failed: %s", exc)
                continue
            self._versions["health"] += 1
            payload, versions = encoded(snapshot), dict(self._versions)
            for conn in list(self.connections):
                conn.post_event("health", payload, versions)

    def _broadcast(self, name: str, payload: dict[str, Any]) -> None:
        """A gateway-wide `chat` event (`Gateway.broadcasts`) to every connection, as OpenClaw's gateway
        sends them to its operator clients. `sessions.changed` and `session.message` are only for the
        connections that asked with `sessions.subscribe`: the subscription listens for them itself."""
        if name not in BROADCAST_TO_ALL or not self.connections:
            return
        once = encoded(payload)
        for conn in list(self.connections):
            conn.post_event(name, once)

    # --- HTTP guard: browser checks, Bearer, failed-auth limiter -------------------------------------

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        """In order: browser requests from other sites are refused (403, nothing counted); on the paths
        that take the gateway token (`/v1`, the WebSocket at `/`) a wrong one is counted and refused
        (401, or 429 once locked out) and a missing one is refused (401 on `/v1`) without counting;
        then the handler, after which a credential a capability's route reported as wrong is counted. Browser
        pages (claw/web/) are served to loopback as they are and to other hosts only with the token (`Basic`,
        the browser's own prompt, or `Bearer`); the page's own origin on loopback counts as listed."""
        if request.path == "/health":
            return await handler(request)
        refusal = browser_refusal(request.headers.get("Origin"), request.headers.get("Sec-Fetch-Site"), self._origins)
        if refusal is not None:  # a bad Origin is worth a warning (a web UI not listed); a page's <img> is not
            level = logging.WARNING if request.headers.get("Origin") is not None else logging.DEBUG
            log.log(level, "refused %s %s from %s: %s", request.method, request.path, request.remote, refusal)
            return web.json_response({"error": {"message": refusal, "type": "forbidden"}}, status=403)
        if page_access.is_page(request, self._control_ui):
            if not page_access.is_local(request):  # nothing for other hosts without the token
                presented = page_credential(request.headers.get("Authorization"))
                if presented is None:
                    return page_access.login()
                if not tokens_match(presented, self.settings.token or ""):
                    return self._wrong_credential(request, presented, page=True)
        elif request.path in ("/", "/v1", "/mcp") or request.path.startswith("/v1/"):  # /mcp: claw as an MCP server
            # A browser that loaded the pages from another host with the token (Basic) sends it on the upgrade too.
            read = page_credential if request.path == "/" else bearer_credential
            presented = read(request.headers.get("Authorization"))
            if presented is not None and not tokens_match(presented, self.settings.token or ""):
                return self._wrong_credential(request, presented)
            if presented is None and request.path != "/":  # the WebSocket may bring it in `connect` instead
                log.debug("refused %s %s from %s: no bearer token", request.method, request.path, request.remote)
                return _unauthorized(request)
        if self.draining and request.method == "POST":
            failure = WireError(503, "the gateway is shutting down", type="server_error", code="unavailable")
            return error_response(failure, {"x-should-retry": "false"})
        response = await handler(request)
        reported = reported_bad_credential(request)  # a capability's route refused a signature or secret
        if reported is not None:
            wait = self.settings.limiter.failed(request.remote or "?", reported)
            if wait and not response.prepared:  # a refusal is a plain response, not yet sent
                return _locked_out(wait)
        return response

    def _wrong_credential(self, request: web.Request, presented: str, *, page: bool = False) -> web.Response:
        """Count a wrong gateway token; 401, or 429 while this address or this token is locked out
        (logged once per lockout by the limiter, not once per request)."""
        source = request.remote or "?"
        wait = self.settings.limiter.failed(source, presented)
        if wait:
            return _locked_out(wait)
        log.warning("refused %s %s from %s: bad bearer token", request.method, request.path, source)
        return page_access.login() if page else _unauthorized(request)

    # --- WebSocket ---------------------------------------------------------------------------------

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        source = request.remote or "?"
        # A wrong bearer never gets here (the guard refused it); a right one lifts the pre-auth cap at once.
        upgrade_auth = tokens_match(page_credential(request.headers.get("Authorization")), self.settings.token or "")
        limit = self.settings.max_payload_bytes
        # Frames are capped by the reader before they are buffered: 64 KiB until `connect` proves who is
        # sending (OpenClaw's clients bring the token only there), then `limit`.
        ws = _WebSocket(limit if upgrade_auth else PRE_AUTH_MAX_BYTES, heartbeat=self.settings.heartbeat_s)
        if not ws.can_prepare(request).ok:  # not an upgrade: a browser opening the gateway's address
            if self._control_ui is not None:
                return self._control_ui.index()
            if "text/html" in request.headers.get("Accept", ""):
                raise web.HTTPFound("/chat/")
            body = {"error": {"message": "the WebSocket endpoint; HTTP lives at /health and /v1, the web chat at "
                              "/chat/", "type": "upgrade"}}  # fmt: skip
            return web.json_response(body, status=426, headers={"Upgrade": "websocket"})
        anonymous = not upgrade_auth
        if self.draining or (anonymous and self._pending_handshakes >= self.settings.max_pending_handshakes):
            return web.json_response({"error": {"message": "busy or shutting down", "type": "unavailable"}}, status=503)
        gateway = self._gateway
        assert gateway is not None
        await ws.prepare(request)
        local = page_access.is_local(request)
        peer = Peer(source, uuid.uuid4().hex[:12], local, limit)
        methods = sorted({*gateway.methods, *self._server_methods})

        def hello_for(info: ConnectInfo) -> dict[str, Any]:
            return hello(info, self.settings, methods, limit, self._snapshot(info))

        self._pending_handshakes += anonymous
        try:
            info = await handshake(ws, peer, self.settings, self._devices, hello_for, lambda: ws.lift_cap(limit))
        finally:
            self._pending_handshakes -= anonymous
        if info is None:
            return ws
        conn = WsConnection(ws, gateway, info, self.settings, lambda: self.draining, request.transport,
                            self._server_methods)  # fmt: skip
        self.connections.add(conn)
        if info.device_id and self._device_watch is not None:
            self._device_watch.recheck()  # a revocation between its admission and now is not missed
        self._presence_changed()
        self._relay.add(conn)  # if it answers exec questions (claw/server/ws_approvals.py)
        started = time.monotonic()
        log.info("connection %s from %s: %s %s (%s)", peer.conn_id, source, info.client_id, info.client_version,
                 info.client_mode)  # fmt: skip
        try:
            await conn.serve()
        finally:
            self._relay.discard(conn)
            self.connections.discard(conn)
            self._presence_changed()
            log.info(
                "connection %s closed after %.1f s (code %s)", peer.conn_id, time.monotonic() - started, ws.close_code
            )
        return ws

    def _snapshot(self, joining: ConnectInfo) -> dict[str, Any]:
        """`hello-ok.snapshot`: who is connected, health, uptime, the default session."""
        assert self._gateway is not None
        agent_id = self._gateway.config.agent_ids[0]
        now_ms = int(time.time() * 1000)
        return {
            "presence": [c.info.presence() for c in self.connections] + [joining.presence()],
            "health": {"ok": True, "ts": now_ms},
            "stateVersion": {"presence": self._versions["presence"] + 1, "health": self._versions["health"]},
            "uptimeMs": max(0, int(now_ms - self._gateway.started_at * 1000)),
            "sessionDefaults": {
                "defaultAgentId": agent_id,
                "mainKey": "main",
                "mainSessionKey": main_session_key(agent_id),
            },
        }


CLOSE_WAIT_S = 2.0


class _WebSocket(web.WebSocketResponse):
    """A WebSocket whose frame cap can be lifted once the connection is authenticated.

    aiohttp fixes the reader's cap when the socket opens, and its C reader keeps it out of reach; a
    connection that starts capped therefore reads with aiohttp's pure-Python reader (same queue, same
    protocol hooks), whose cap `lift_cap` raises. It also names the limit when aiohttp closes for an
    oversized frame (1009), which it does without a reason."""

    def __init__(self, cap: int, *, heartbeat: float) -> None:
        # A peer that does not answer our close frame within CLOSE_WAIT_S is cut off (aiohttp waits 10 s):
        # a client refused at the handshake, a slowloris mid-frame above all, holds nothing longer.
        super().__init__(max_msg_size=cap + 1, heartbeat=heartbeat, compress=False, timeout=CLOSE_WAIT_S)
        self.cap = cap
        self._liftable = cap == PRE_AUTH_MAX_BYTES

    def _post_start(self, request: web.BaseRequest, protocol: str | None, writer: Any) -> None:
        if not self._liftable:
            super()._post_start(request, protocol, writer)
            return
        # aiohttp's own _post_start (3.14), with the pure-Python reader in place of the C one.
        from aiohttp._websocket.reader_py import WebSocketDataQueue, WebSocketReader
        from aiohttp.helpers import DEFAULT_CHUNK_SIZE

        self._ws_protocol = protocol
        self._writer = writer
        self._reset_heartbeat()
        self._reader = WebSocketDataQueue(request._protocol, DEFAULT_CHUNK_SIZE, loop=request._loop)
        self._parser = WebSocketReader(self._reader, self._max_msg_size, compress=False, decode_text=True)
        callback = None if self._heartbeat is None else self._on_data_received
        request.protocol.set_parser(self._parser, data_received_cb=callback)
        request.protocol.keep_alive(False)

    def lift_cap(self, cap: int) -> None:
        if self._liftable and cap > self.cap:
            parser: Any = self._parser
            parser._max_msg_size = cap + 1
            parser._max_fragments = max(1024, (cap + 1) // 256)
            self.cap = cap

    async def close(self, *, code: int = WSCloseCode.OK, message: bytes = b"", drain: bool = True) -> bool:
        if code == WSCloseCode.MESSAGE_TOO_BIG and not message:
            before = "" if self.cap > PRE_AUTH_MAX_BYTES else " before connect"
            message = f"frame exceeds {self.cap} bytes{before}".encode()[:120]
        return await super().close(code=code, message=message, drain=drain)


def _unauthorized(request: web.Request) -> web.Response:
    message = "unauthorized: invalid or missing token" if request.path == "/" else "invalid or missing bearer token"
    return error_response(WireError(401, message, code="invalid_api_key"), {"WWW-Authenticate": "Bearer"})


def _locked_out(wait: float) -> web.Response:
    failure = WireError(429, "too many failed auth attempts; retry later", type="rate_limit_error")
    return error_response(failure, {"Retry-After": str(int(wait) + 1)})


def _bound_port(runner: web.AppRunner, wanted: int) -> int:
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return int(address[1])
    return wanted
