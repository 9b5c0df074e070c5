"""`ChatPage`: claw's own web chat, `/chat/` and its few files, read from the package once at start.

The files are plain HTML, CSS and ES modules (`static/`); nothing is fetched at run time and nothing is
built. The page takes the gateway token from its own form (or from the URL's `#token=` fragment, which a
browser never sends to a server), so no token ever travels in a URL a log could keep.
"""

from __future__ import annotations

from importlib import resources

from aiohttp import web

from claw.web.headers import chat_headers

PREFIX = "/chat/"
_TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8",
          ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}  # fmt: skip


class ChatPage:
    """`/chat/` and its files; `/chat` (no slash) redirects there unless a Control UI owns it (`owns_bare`)."""

    def __init__(self, *, owns_bare: bool = True) -> None:
        self._owns_bare = owns_bare
        static = resources.files("claw.web") / "static"
        # Everything the page is, read once; any other name under `/chat/` is a 404.
        self._files = {f.name: f.read_bytes() for f in static.iterdir() if f.is_file() and _suffix(f.name) in _TYPES}

    def add_routes(self, router: web.UrlDispatcher) -> None:
        if self._owns_bare:
            router.add_get("/chat", self.redirect)
        router.add_get(PREFIX, self.index)
        router.add_get(PREFIX + "{name}", self.file)

    async def redirect(self, request: web.Request) -> web.Response:
        raise web.HTTPFound(PREFIX)

    async def index(self, request: web.Request) -> web.Response:
        return self._serve("chat.html")

    async def file(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in self._files:
            raise web.HTTPNotFound(headers=chat_headers("text/plain; charset=utf-8"))
        return self._serve(name)

    def _serve(self, name: str) -> web.Response:
        return web.Response(body=self._files[name], headers=chat_headers(_TYPES[_suffix(name)]))


def _suffix(name: str) -> str:
    return name[name.rfind(".") :] if "." in name else ""
