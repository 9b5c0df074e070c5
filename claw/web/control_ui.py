"""`ControlUi`: a Control UI build of OpenClaw's (the `dist/control-ui/` of its npm package) served at `/`.

As OpenClaw's gateway serves it: files under the root by path (a path that leaves the root, through `..` or
a link, is a 404), `index.html` for any other page the app routes itself (a request that accepts HTML), and
`/control-ui-config.json` (the bootstrap the app reads before it connects; also at OpenClaw's two older
paths). The index gets the base-path attribute the app reads and a Content-Security-Policy that allows its
inline scripts by hash, never `'unsafe-inline'` for scripts; its styles need inline (Lit sets them), as in
OpenClaw's own policy. The app then connects to the WebSocket on the same port.

Paths the gateway serves itself (`/v1`, `/health`, `/hooks`, `/mcp`, and `/chat/…`, claw's web chat) are never
the app's; `/chat` without the slash is (the app's chat tab), so a reload there stays in the app.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
from pathlib import Path
from typing import Any

from aiohttp import web

from claw import __version__
from claw.errors import ConfigError
from claw.web.headers import COMMON

CONFIG_PATHS = frozenset({"/control-ui-config.json", "/__openclaw/control-ui-config.json",
                          "/__openclaw__/control-ui-config.json"})  # fmt: skip
_NOT_THE_APPS = ("/v1", "/health", "/hooks", "/mcp")
_INLINE_SCRIPT = re.compile(r"<script(?![^>]*\ssrc=)[^>]*>(.*?)</script>", re.S | re.I)
_HTML_TAG = re.compile(r"<html\b", re.I)
_IMMUTABLE = "public, max-age=31536000, immutable"


def _csp(script_hashes: list[str]) -> str:
    scripts = " ".join(["'self'", *(f"'{h}'" for h in script_hashes)])
    return "; ".join((
        "default-src 'self'",
        "base-uri 'none'",
        "object-src 'none'",
        "frame-ancestors 'none'",
        f"script-src {scripts}",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "media-src 'self' data: blob:",
        "font-src 'self'",
        "worker-src 'self'",
        "connect-src 'self' data:",  # the app fetches its inline icons as data: URLs
    ))  # fmt: skip


class ControlUi:
    """Serves one build folder; construction fails (ConfigError, naming the key) when it has no index.html."""

    def __init__(self, root: Path, assistant_name: str) -> None:
        self.root = root.expanduser().resolve()
        index = self.root / "index.html"
        if not index.is_file():
            raise ConfigError(f"gateway.controlUi.root: {root} has no index.html (expected a Control UI build, "
                              "e.g. the dist/control-ui/ folder of the openclaw npm package)")  # fmt: skip
        html = index.read_text(encoding="utf-8")
        html = _HTML_TAG.sub('<html data-openclaw-control-ui-base-path=""', html, count=1)
        hashes = ["sha256-" + base64.b64encode(hashlib.sha256(m.encode()).digest()).decode()
                  for m in _INLINE_SCRIPT.findall(html) if m.strip()]  # fmt: skip
        self._index = html.encode("utf-8")
        self._headers = {**COMMON, "Content-Security-Policy": _csp(hashes)}
        self._config: dict[str, Any] = {
            "basePath": "",
            "assistantName": assistant_name,
            "assistantAvatar": None,
            "serverVersion": f"claw {__version__}",
            "embedSandbox": "strict",
            "allowExternalEmbedUrls": False,
            "automaticallyFetchFavicons": False,
            "communityInvite": False,
            "terminalEnabled": False,
            "cliAgentsEnabled": False,
            "pluginAssetsRequireAuth": True,
            "pluginFrameGrants": [],
        }

    @staticmethod
    def serves(path: str) -> bool:
        if path.startswith("/chat/"):  # claw's web chat; the app's own chat tab is `/chat`, without the slash
            return False
        return not any(path == p or path.startswith(p + "/") for p in _NOT_THE_APPS)

    def add_routes(self, router: web.UrlDispatcher) -> None:
        """The catch-all: registered after every other route, so theirs match first."""
        router.add_get("/{tail:.*}", self.handle)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if not self.serves(path):
            raise web.HTTPNotFound()
        if path in CONFIG_PATHS:
            return web.json_response(self._config, headers={**self._headers, "Cache-Control": "no-cache"})
        if path in ("/", "/index.html"):
            return self.index()
        found = await asyncio.to_thread(self._file, path.lstrip("/"))
        if found is not None:
            cache = _IMMUTABLE if path.startswith("/assets/") else "no-cache"
            return web.FileResponse(found, headers={**self._headers, "Cache-Control": cache})
        if "text/html" in request.headers.get("Accept", ""):
            return self.index()  # a route of the app's own (`/chat`, `/sessions`, `/settings` …)
        raise web.HTTPNotFound(headers=self._headers)

    def index(self) -> web.Response:
        headers = {**self._headers, "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"}
        return web.Response(body=self._index, headers=headers)

    def _file(self, relative: str) -> Path | None:
        """The regular file `relative` names inside the root (links resolved first), or None."""
        if not relative or "\0" in relative:
            return None
        target = (self.root / relative).resolve()
        if not target.is_relative_to(self.root) or not target.is_file():
            return None
        return target
