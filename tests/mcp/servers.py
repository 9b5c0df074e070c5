"""MCP servers for the tests, written with the SDK's own server API (MCPServer, FastMCP's successor).

Run as `python tests/mcp/servers.py MODE`: `basic` over stdio (echo, add, image, slow, crash, grow,
many), `badschema`, `noinit` (reads and never answers), `http` (streamable HTTP on 127.0.0.1:0; prints
`PORT <n>`). With `MCP_TEST_PIDFILE` set, each server appends `<pid> <pgid>` to it on start; `slow`
appends `cancelled <seconds>` to `MCP_TEST_EVENTS` when the client cancels it.
"""

import asyncio
import base64
import os
import sys
import time

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _note(var: str, line: str) -> None:
    path = os.environ.get(var)
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")


def build(many: int = 0):  # noqa: ANN201 - MCPServer; imported here so the module imports cheaply
    from mcp.server.mcpserver import Context, Image, MCPServer

    server = MCPServer("claw-test")

    @server.tool(description="Echo the text back.\nSecond line of the description.")
    def echo(text: str) -> str:
        return f"echo: {text}"

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="A one-pixel PNG.")
    def image() -> Image:
        return Image(data=PNG, format="png")

    @server.tool(description="Sleep, then say so.")
    async def slow(seconds: float) -> str:
        _note("MCP_TEST_EVENTS", f"started {seconds}")
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            _note("MCP_TEST_EVENTS", f"cancelled {seconds}")
            raise
        return "slept"

    @server.tool(description="Exit the server process in the middle of the call.")
    def crash() -> str:
        os._exit(3)

    @server.tool(description="Add a tool named `extra` and tell the client the list changed.")
    async def grow(ctx: Context) -> str:
        @server.tool(description="Only there after grow.")
        def extra() -> str:
            return "extra here"

        await ctx.request_context.session.send_tool_list_changed()
        return "grown"

    @server.tool(description="Write text to a file at an absolute path (for the sandbox tests).")
    def write_file(path: str, text: str) -> str:
        from mcp.server.mcpserver.exceptions import ToolError

        try:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        except OSError as exc:
            raise ToolError(f"cannot write {path}: {exc.strerror}") from None  # the reason, for the tests
        return f"wrote {path}"

    @server.prompt(description="Ask for a summary of a topic.")
    def summarize(topic: str) -> str:
        return f"Please summarise {topic} in one line."

    for i in range(many):
        server.add_tool(lambda x="", i=i: f"tool {i}: {x}", name=f"t{i:03d}", description=f"Numbered tool {i}.")
    return server


def _authorized(app, expected: str | None):  # noqa: ANN001, ANN202 - an ASGI app in, an ASGI app out
    """`app`, but a request without `Authorization: <expected>` gets a 401 and never reaches it."""
    if expected is None:
        return app

    async def guarded(scope, receive, send) -> None:  # noqa: ANN001
        if scope["type"] == "http" and dict(scope["headers"]).get(b"authorization") != expected.encode():
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"missing or wrong Authorization header"})
            return
        await app(scope, receive, send)

    return guarded


def main() -> None:
    mode = sys.argv[1]
    _note("MCP_TEST_PIDFILE", f"{os.getpid()} {os.getpgid(0)}")
    if mode == "noinit":
        for _line in sys.stdin:  # reads the initialize request and never answers it
            pass
        return
    if mode == "slow":  # a server that takes long to start (MCP_TEST_SLOW seconds), then is basic
        time.sleep(float(os.environ.get("MCP_TEST_SLOW", "30")))
    server = build(int(os.environ.get("MCP_TEST_MANY", "0")))
    if mode == "badschema":
        # echo's schema is not a JSON Schema at all; add's lacks `properties` and carries `$schema` (fixable)
        server._tool_manager.get_tool("echo").parameters = {"type": "object", "properties": {"text": {"type": 5}}}
        server._tool_manager.get_tool("add").parameters = {"type": "object", "$schema": "x"}
        server.run("stdio")
    elif mode == "http":
        import uvicorn

        config = uvicorn.Config(
            _authorized(server.streamable_http_app(), os.environ.get("MCP_TEST_AUTHORIZATION")),
            host="127.0.0.1",
            port=0,
            log_level="warning",
        )
        web = uvicorn.Server(config)

        async def serve() -> None:
            task = asyncio.create_task(web.serve())
            while not web.started:
                await asyncio.sleep(0.01)
            port = web.servers[0].sockets[0].getsockname()[1]
            print(f"PORT {port}", flush=True)
            await task

        asyncio.run(serve())
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
