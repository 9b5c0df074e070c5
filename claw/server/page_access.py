"""Who gets the browser pages (claw/web/): everyone on loopback, other hosts only with the gateway token.

A browser cannot put a bearer token on a page load, so a request from another host (or through a proxy:
a loopback peer sending `Forwarded`/`X-Forwarded-For`/`X-Real-IP` speaks for someone else) is answered
with a Basic challenge: the browser's own prompt, any user name, the token as password (`page_credential`).
The WebSocket upgrade at `/` is not a page: it authenticates in `connect` (and accepts the same Basic
credential a browser sends along, see the server's guard).
"""

from __future__ import annotations

from aiohttp import web

from claw.server.auth import is_loopback
from claw.web.control_ui import ControlUi

PROXY_HEADERS = ("Forwarded", "X-Forwarded-For", "X-Real-IP")
"""A loopback peer sending these is a proxy speaking for someone else: not local (pages, device pairing)."""


def is_local(request: web.Request) -> bool:
    """A direct loopback peer."""
    return is_loopback(request.remote or "?") and not any(h in request.headers for h in PROXY_HEADERS)


def is_page(request: web.Request, control_ui: ControlUi | None) -> bool:
    """A browser page or its files: `/chat…`, `/` unless it is the WebSocket upgrade, and with a Control UI
    everything it serves."""
    path = request.path
    if path == "/":
        return request.headers.get("Upgrade", "").lower() != "websocket"
    if path == "/chat" or path.startswith("/chat/"):
        return True
    return control_ui is not None and ControlUi.serves(path)


def login() -> web.Response:
    """The challenge a browser on another host gets: it asks its user for the token."""
    body = "the gateway token is needed: any user name, the token (`claw gateway token`) as password\n"
    headers = {"WWW-Authenticate": 'Basic realm="claw gateway", charset="UTF-8"', "Cache-Control": "no-store"}
    return web.Response(status=401, text=body, headers=headers)
