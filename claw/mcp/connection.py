"""`McpConnection`: one configured server, kept up: started, listed, restarted with backoff, closed.

A supervisor task owns the connection (the SDK's transports are anyio context managers, entered and
left in one task): it connects, runs the initialize handshake and the first tool listing under the
server's timeout, then waits until the connection is lost or the gateway closes. A server that fails
to start or dies is `down` with its last error, its tools are gone from the next turn, and it is
started again after a wait that doubles up to `mcp.restartMaxSeconds`. Calls come from the runs'
tasks and go through the live session; a call cut off by a crash is an error result, not a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from claw.errors import ClawError
from claw.mcp.transport import open_transport
from claw.settings.mcp import McpServerSettings

if TYPE_CHECKING:
    from claw.mcp.sandboxing import SandboxContext

log = logging.getLogger(__name__)

State = Literal["stopped", "starting", "up", "down"]
_FIRST_BACKOFF = 0.5
_STABLE_SECONDS = 30.0
"""Up this long, a server that dies again is restarted after the first short wait, not the longest."""


@dataclass(slots=True)
class ServerStatus:
    """What `claw mcp ls` and the doctor show of one server."""

    name: str
    state: State = "stopped"
    last_error: str = ""
    restarts: int = 0
    started_in: float | None = None
    """Seconds from spawning to the first tool listing, for the last successful start."""
    tools: list[Any] = field(default_factory=list)
    """The server's tools (SDK `Tool`s) as last listed."""
    sandbox: str = ""
    """How the last start ran it: `bwrap`, or why not (claw/mcp/sandboxing.py); empty before a start."""


class McpConnection:
    """One server's live connection, by its supervisor task; `call` and `tools` for the rest of claw."""

    def __init__(
        self,
        name: str,
        settings: McpServerSettings,
        *,
        log_file: Path,
        restart_max_seconds: float = 60.0,
        on_change: Callable[[], None] = lambda: None,
        sandbox: SandboxContext | None = None,
        listing_file: Path | None = None,
    ) -> None:
        from claw.mcp import listing_cache

        self.name = name
        self.settings = settings
        self.status = ServerStatus(name)
        self._log_file = log_file
        self._restart_max = restart_max_seconds
        self._on_change = on_change
        self.sandbox = sandbox
        """The config's sandboxing, for a stdio server; None: never sandboxed (a bench, a bare manager)."""
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._first_attempt = asyncio.Event()
        self._settled = asyncio.Event()
        """Set while the server is not starting: up, or its attempt failed."""
        self._relist = asyncio.Event()
        self._listing_file = listing_file
        self.cached_tools: list[Any] = listing_cache.load(listing_file, settings) if listing_file else []
        """The tools it listed last time with these settings (claw/mcp/listing_cache.py), offered while it starts."""

    @property
    def started(self) -> bool:
        return self._task is not None

    def start(self) -> None:
        """Start the supervisor (once); returns at once."""
        if self._task is None:
            self._stop = asyncio.Event()
            self.status.state = "starting"
            self._task = asyncio.create_task(self._supervise(), name=f"mcp:{self.name}")

    async def wait_first_attempt(self) -> None:
        """Until the first start has succeeded or failed (bounded by the server's timeout inside)."""
        await self._first_attempt.wait()

    async def aclose(self) -> None:
        """Stop the server and wait until its process is gone (the SDK's bounded shutdown)."""
        task, self._task = self._task, None
        if task is None:
            return
        assert self._stop is not None
        self._stop.set()
        if self.status.state == "starting":  # nothing to finish: an attempt under way is cut off (its process ends)
            task.cancel()
        try:
            async with asyncio.timeout(15):
                await task
        except TimeoutError:
            log.warning("MCP server %s did not stop in time; cancelling its supervisor", self.name)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
        self.status.state = "stopped"

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """The server's `CallToolResult`; `ServerDown` when it is not up, `TimeoutError` past the timeout. A
        server still starting (its tool offered from its last listing) is waited for, saying so."""
        if self._session is None and self.status.state in ("starting", "stopped"):
            self.start()  # offered from its last listing, not started yet (a one-shot turn)
            await self._wait_until_started()
        session = self._session
        if session is None:
            raise ServerDown(self.name, self.status.last_error)
        from mcp.shared.exceptions import MCPError

        limit = self.settings.timeout_seconds
        try:
            async with asyncio.timeout(limit + 5):  # the SDK's own timeout comes first; this one is a backstop
                return await session.call_tool(tool, arguments, read_timeout_seconds=limit)
        except MCPError as exc:
            if "timed out" in str(exc):
                raise TimeoutError(f"no answer within {limit:g} s") from None
            if self._session is not session or self.status.state != "up":
                raise ServerDown(self.name, str(exc) or "the connection closed") from None
            raise

    async def _wait_until_started(self) -> None:
        log.info("waiting for MCP server %s (still starting)", self.name)  # the run says so (McpTool.run)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.settings.startup_timeout_seconds + 5):
                await self._settled.wait()

    async def session(self) -> Any:
        """The live SDK session (for listings: resources, prompts); ServerDown when there is none."""
        if self._session is None:
            raise ServerDown(self.name, self.status.last_error)
        return self._session

    async def _supervise(self) -> None:
        assert self._stop is not None
        delay = _FIRST_BACKOFF
        said = ""
        while not self._stop.is_set():
            began = time.monotonic()
            offset = _size(self._log_file)
            try:
                await self._run_once(began)
                if not self._stop.is_set():
                    self.status.last_error = self._explained(
                        "the server closed the connection (it exited or crashed)", offset
                    )
            except Exception as exc:  # noqa: BLE001 - anything a server does is reported, never raised
                self.status.last_error = self._explained(_describe(exc), offset)
                if self.status.last_error != said:  # each restart fails alike: said once, not at every retry
                    said = self.status.last_error
                    log.warning("MCP server %s: %s", self.name, said)
            self._session = None
            self.status.state = "stopped" if self._stop.is_set() else "down"
            self._first_attempt.set()
            self._settled.set()
            self._on_change()
            if self._stop.is_set():
                return
            if time.monotonic() - began > _STABLE_SECONDS:
                delay = _FIRST_BACKOFF
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):  # the backoff; a close ends it early
                    await self._stop.wait()
            delay = min(delay * 2, self._restart_max)
            if not self._stop.is_set():
                self.status.restarts += 1
                self.status.state = "starting"
                self._settled.clear()

    def _explained(self, error: str, offset: int) -> str:
        """`error` with the last lines the server wrote to stderr in this attempt, and, when the sandbox
        likely caused it, the setting that fixes it (claw/mcp/sandboxing.py); "Connection closed" alone
        tells nobody anything."""
        from claw.mcp.sandboxing import sandbox_hint

        tail = _stderr_tail(self._log_file, offset) if self.settings.command is not None else ""
        if error == "Connection closed":
            error = "the server exited during start-up"
        if tail:
            error += f"; its stderr ends: {tail}"
        hint = sandbox_hint(self.name, error) if self.status.sandbox == "bwrap" else None
        return f"{error} — {hint}" if hint else error

    async def _run_once(self, began: float) -> None:
        import anyio
        from mcp.client.session import ClientSession
        from mcp_types import Implementation

        assert self._stop is not None
        lost = anyio.Event()
        argv = None
        if self.settings.command is not None:
            from claw.mcp.sandboxing import stdio_argv

            argv, decision = await stdio_argv(self.name, self.settings, self.sandbox)
            self.status.sandbox = decision.shown
        async with open_transport(self.name, self.settings, log_file=self._log_file, argv=argv) as (read, write):
            relay_send, relay_receive = anyio.create_memory_object_stream[Any](0)
            async with anyio.create_task_group() as group:
                group.start_soon(_relay, read, relay_send, lost)
                info = Implementation(name="claw", version="0.1.0")
                async with ClientSession(
                    relay_receive, write, message_handler=self._on_message, client_info=info
                ) as session:
                    with anyio.fail_after(self.settings.startup_timeout_seconds):
                        await session.initialize()
                        await self._list(session)
                    self.status.started_in = time.monotonic() - began
                    self._session, self.status.state, self.status.last_error = session, "up", ""
                    self._first_attempt.set()
                    self._settled.set()
                    self._on_change()
                    group.start_soon(self._relister, session)
                    await _either(lost, self._stop)
                    self._session = None
                group.cancel_scope.cancel()

    async def _list(self, session: Any) -> None:
        tools: list[Any] = []
        cursor = None
        while True:  # every page; a server may split a long list
            from mcp_types import PaginatedRequestParams

            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor) if cursor else None)
            tools.extend(page.tools)
            cursor = page.next_cursor
            if not cursor:
                break
        self.status.tools = tools
        if self._listing_file is not None:
            from claw.mcp import listing_cache

            listing_cache.save(self._listing_file, self.settings, tools)
            self.cached_tools = tools

    async def _relister(self, session: Any) -> None:
        """Lists the tools again after each `notifications/tools/list_changed` (outside the SDK's receive
        loop, which must go on reading for the listing's answer to arrive)."""
        while True:
            await self._relist.wait()
            self._relist.clear()
            try:
                async with asyncio.timeout(self.settings.timeout_seconds):
                    await self._list(session)
            except Exception as exc:  # noqa: BLE001 - the old list stays; the next change tries again
                log.warning("MCP server %s: listing its tools again failed: %s", self.name, _describe(exc))
                continue
            self._on_change()

    async def _on_message(self, message: Any) -> None:
        if getattr(message, "method", None) == "notifications/tools/list_changed":
            self._relist.set()


class ServerDown(ClawError):
    """The server is not up (not started yet, or down with `reason`)."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"MCP server {name} is not running" + (f" ({reason})" if reason else ""))


async def _relay(read: Any, send: Any, lost: Any) -> None:
    """Passes the transport's messages to the session and notes when they end: a lost connection."""
    import anyio

    try:
        async with send:
            async for item in read:
                await send.send(item)
    except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
        pass
    finally:
        lost.set()


async def _either(lost: Any, stop: asyncio.Event) -> None:
    import anyio

    async with anyio.create_task_group() as group:

        async def first(wait: Callable[[], Any]) -> None:
            await wait()
            group.cancel_scope.cancel()

        group.start_soon(first, lost.wait)
        group.start_soon(first, stop.wait)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _stderr_tail(path: Path, offset: int, lines: int = 3) -> str:
    """The last `lines` non-blank lines written to the server's log since `offset`, joined by ` | ` (npm's
    notices about its own updates left out: they would push the error out of view)."""
    try:
        with path.open("rb") as file:
            file.seek(max(offset, _size(path) - 16_384))
            text = file.read().decode("utf-8", "replace")
    except OSError:
        return ""
    kept = [line.strip()[:200] for line in text.splitlines() if line.strip() and not line.startswith("npm notice")]
    return " | ".join(kept[-lines:])


def _describe(exc: BaseException) -> str:
    """One line for an error, looking inside the exception groups anyio wraps errors in."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return "no answer to the initialize handshake (or the first tool listing) within startupTimeoutSeconds"
    text = str(exc) or type(exc).__name__
    if isinstance(exc, FileNotFoundError | PermissionError):
        return f"cannot start the command: {text}"
    return text.splitlines()[0][:300]
