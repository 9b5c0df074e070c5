"""claw's MCP server over streamable HTTP, at `/mcp` on the gateway's own port, behind its token.

The SDK's HTTP transport is an ASGI app; the gateway's server is aiohttp. `asgi_call` runs the one
inside the other for one request: the body is read whole (JSON-RPC requests are small), the response
is streamed back as the app sends it. Stateless with JSON responses: every POST carries one request
and gets its answer, so nothing is held per client between requests. The gateway's guard has already
checked the bearer token and refused cross-site browser requests, so the SDK's own Host check is off
(it would refuse a gateway bound to a LAN address).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

MCP_PATH = "/mcp"


class McpHttpEndpoint:
    """The `/mcp` route's handler; the SDK server and its session manager start with the first request."""

    def __init__(self, gateway: Any) -> None:
        self._gateway = gateway
        self._app: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._lock = asyncio.Lock()

    async def handle(self, request: Any) -> Any:
        return await asgi_call(await self._ensure(), request)

    async def _ensure(self) -> Any:
        async with self._lock:
            if self._app is None:
                from mcp.server.transport_security import TransportSecuritySettings

                from claw.client.local import LocalClient
                from claw.mcp.serve import build_server

                server = build_server(LocalClient(self._gateway, owns_gateway=False))
                app = server.streamable_http_app(
                    streamable_http_path=MCP_PATH,
                    stateless_http=True,
                    json_response=True,
                    transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
                )
                ready = asyncio.Event()

                async def run() -> None:
                    async with server.session_manager.run():
                        ready.set()
                        await self._stop.wait()

                self._task = asyncio.create_task(run(), name="mcp-http")
                await ready.wait()
                self._app = app
        return self._app

    async def aclose(self) -> None:
        self._stop.set()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task
            self._task = None


async def asgi_call(app: Any, request: Any) -> Any:
    """Run ASGI `app` for one aiohttp `request`; its response, streamed as the app sends it."""
    from aiohttp import web

    body = await request.read()
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": request.method,
        "scheme": request.scheme,
        "path": request.path,
        "raw_path": request.raw_path.split("?", 1)[0].encode(),
        "query_string": request.query_string.encode(),
        "root_path": "",
        "headers": [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in request.headers.items()],
        "client": (request.remote or "", 0),
        "server": ("gateway", 0),
    }
    delivered = False
    finished = asyncio.Event()
    response: web.StreamResponse | None = None

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await finished.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal response
        if message["type"] == "http.response.start":
            response = web.StreamResponse(status=message["status"])
            for key, value in message.get("headers", ()):
                name = key.decode("latin-1")
                if name.lower() != "content-length":  # aiohttp frames the body itself
                    response.headers.add(name, value.decode("latin-1"))
            await response.prepare(request)
        elif message["type"] == "http.response.body" and response is not None:
            await response.write(message.get("body", b""))
            if not message.get("more_body", False):
                await response.write_eof()

    try:
        await app(scope, receive, send)
    finally:
        finished.set()
    return response if response is not None else web.Response(status=500, text="no response from the MCP app")
