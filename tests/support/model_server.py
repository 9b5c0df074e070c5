"""A scripted OpenAI-compatible model server: the fake LLM every claw test talks to.

It is a real aiohttp server on ``127.0.0.1:<ephemeral port>``, running on its own event loop in a
background thread, so sync tests, async tests and ``claw`` subprocesses (via ``OPENAI_BASE_URL``)
can all use it with the real ``openai`` client.

How to script it
----------------
Queue replies; each ``POST /v1/chat/completions`` consumes the next one, in order::

    with ScriptedModelServer() as server:              # or use the ``model_server`` fixture
        server.script(
            tool_calls([("read", {"path": "SOUL.md"}), ("exec", {"command": "ls"})]),
            text("All done."),
        )
        client = OpenAI(base_url=server.base_url, api_key="test-key")
        ...                                            # drive the code under test
        assert server.requests[1].messages[-1]["role"] == "tool"

Reply builders: ``text``, ``tool_call``, ``tool_calls``, ``error``, ``overflow``, ``hang``, ``slow``,
``thinking`` (``reasoning_content`` / ``reasoning`` deltas before the content).
A script entry may also be a callable ``(RecordedRequest) -> Reply``, evaluated when the request
arrives. When the script is empty the ``default`` responder answers (``text("ok")`` unless given).

Streaming requests get SSE ``chat.completion.chunk`` events: a role delta, content deltas, tool-call
deltas (id and name first, then the arguments in several pieces), a finish chunk, a ``usage`` chunk
when ``stream_options.include_usage`` is set, then ``data: [DONE]``. Non-streaming requests get one
``chat.completion`` object with the same content, tool calls and usage.

Other endpoints: ``GET /v1/models`` lists ``models``; ``POST /v1/embeddings`` returns deterministic
hashed bag-of-words vectors (see ``embed``), or whatever ``embed_text`` (a ``(text, dimensions) ->
vector`` function, settable while the server runs) computes: a test can stand in for an embedding
model that misses something, e.g. one blind to digits. Every request to any path is recorded in
``requests``.
"""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from aiohttp import web

from tests.support.local_servers import LocalServer, add_local_routes, model_fields
from tests.support.model_replies import (
    ChatTurn,
    Completion,
    Failure,
    RecordedRequest,
    Reply,
    Responder,
    ToolCall,
    Usage,
    embed,
    embedding_inputs,
    error,
    estimate_tokens,
    hang,
    overflow,
    slow,
    text,
    thinking,
    tool_call,
    tool_calls,
)
from tests.support.stream_shapes import Shaped  # replies shaped as local servers stream them

__all__ = [
    "CHAT_PATH", "Completion", "Failure", "RecordedRequest", "Reply", "Responder", "ScriptedModelServer",
    "ToolCall", "Usage", "embed", "error", "hang", "overflow", "slow", "text", "tool_call", "tool_calls",
    "thinking",
]

CHAT_PATH = "/v1/chat/completions"


# ----------------------------------------------------------------------------- server


class ScriptedModelServer:
    """An OpenAI-compatible HTTP server that answers from a script; see the module docstring.

    ``models``: names listed by ``GET /v1/models``. ``default``: responder used when the script is
    empty. ``require_api_key``: when set, requests without ``Authorization: Bearer <key>`` get a 401
    (they are recorded but consume no script entry). ``instant``: write each streamed reply in a single
    socket write instead of one write per delta, for benchmarks. ``embedding_dimensions``: vector size
    when a request does not ask for ``dimensions``. ``embed_text``: how one input becomes a vector
    (default ``embed``); also a public attribute, read on every request.
    """

    def __init__(self, *, models: Iterable[str] = ("test-model",), default: Responder | None = None,
                 require_api_key: str | None = None, instant: bool = False,
                 embedding_dimensions: int = 256,
                 embed_text: Callable[[str, int], list[float]] | None = None,
                 local: LocalServer | None = None) -> None:
        self.models = tuple(models)
        self.local = local  # answer as a local server of that kind (tests/support/local_servers.py)
        self.default: Responder = default or (lambda _request: text("ok"))
        self.require_api_key = require_api_key
        self.instant = instant
        self.embedding_dimensions = embedding_dimensions
        self.embed_text: Callable[[str, int], list[float]] = embed_text or embed
        self._script: deque[Reply | Responder] = deque()
        self._records: list[RecordedRequest] = []
        self._changed = threading.Condition()  # guards _script and _records
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._port: int | None = None
        self._startup_error: BaseException | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> ScriptedModelServer:
        """Start serving in a background thread; returns once the port is bound."""
        if self._thread is not None:
            raise RuntimeError("model server already started")
        ready = threading.Event()
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve(ready)),
                                        name="scripted-model-server", daemon=True)
        self._thread.start()
        if not ready.wait(10):
            raise RuntimeError("model server did not start within 10s")
        if self._startup_error is not None:
            self._thread.join()
            self._thread = None
            raise RuntimeError("model server failed to start") from self._startup_error
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving: stalled replies end, connections close, the thread is joined."""
        thread, loop, stopping = self._thread, self._loop, self._stopping
        if thread is None:
            return
        if loop is not None and stopping is not None and not loop.is_closed():
            # The loop may finish between the check and the call; then it has already stopped.
            try:
                loop.call_soon_threadsafe(stopping.set)
            except RuntimeError:
                pass
        thread.join(timeout)
        if thread.is_alive():
            raise RuntimeError(f"model server thread did not stop within {timeout}s")
        self._thread = self._loop = self._stopping = None

    def __enter__(self) -> ScriptedModelServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("model server not started")
        return self._port

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, without the ``/v1`` prefix."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """What ``OpenAI(base_url=...)`` and ``OPENAI_BASE_URL`` take: ``http://127.0.0.1:PORT/v1``."""
        return f"{self.url}/v1"

    # -- scripting and records (thread-safe) ----------------------------------------------------

    def script(self, *replies: Reply | Responder) -> None:
        """Append replies (or responder callables) to the queue; safe while the server runs."""
        with self._changed:
            self._script.extend(replies)

    @property
    def pending(self) -> int:
        """How many scripted replies have not been consumed yet."""
        with self._changed:
            return len(self._script)

    def reset(self) -> None:
        """Forget the script and every recorded request."""
        with self._changed:
            self._script.clear()
            self._records.clear()

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, in arrival order."""
        with self._changed:
            return list(self._records)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        """The recorded ``POST /v1/chat/completions`` requests only."""
        return [r for r in self.requests if r.path == CHAT_PATH]

    def last_request(self) -> RecordedRequest:
        """The most recent request; AssertionError when there is none."""
        records = self.requests
        assert records, "the model server has received no request"
        return records[-1]

    def wait_for_requests(self, n: int, timeout: float = 30.0, *,
                          path: str | None = None) -> list[RecordedRequest]:
        """Block until ``n`` requests (to ``path``, if given) have arrived; return the first ``n``.

        Raises TimeoutError. From an async test use ``wait_for_requests_async`` so the loop keeps running.
        """
        def matching() -> list[RecordedRequest]:
            return [r for r in self._records if path is None or r.path == path]

        with self._changed:
            if not self._changed.wait_for(lambda: len(matching()) >= n, timeout):
                raise TimeoutError(f"expected {n} requests, got {len(matching())} within {timeout}s")
            return matching()[:n]

    async def wait_for_requests_async(self, n: int, timeout: float = 30.0, *,  # noqa: ASYNC109 (as the sync one)
                                      path: str | None = None) -> list[RecordedRequest]:
        """``wait_for_requests`` for async tests: waits in a worker thread, the test's loop keeps running."""
        return await asyncio.to_thread(self.wait_for_requests, n, timeout, path=path)

    def _record(self, request: web.Request, received_at: float, body: dict[str, Any]) -> RecordedRequest:
        headers = {name.lower(): value for name, value in request.headers.items()}
        with self._changed:
            record = RecordedRequest(request.method, request.path, headers, body, received_at,
                                     index=len(self._records))
            self._records.append(record)
            self._changed.notify_all()
        return record

    def _next_reply(self, record: RecordedRequest) -> Reply:
        with self._changed:
            entry: Reply | Responder = self._script.popleft() if self._script else self.default
        if isinstance(entry, Completion | Failure):
            return entry
        try:
            return entry(record)
        except Exception as exc:  # a broken responder must show up in the test, not hang it
            return error(500, f"scripted responder raised {exc!r}", type="scripted_server_error")

    # -- serving --------------------------------------------------------------------------------

    async def _serve(self, ready: threading.Event) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post(CHAT_PATH, self._chat)
        app.router.add_post("/v1/embeddings", self._embeddings)
        app.router.add_get("/v1/models", self._models)
        add_local_routes(app, self)
        app.router.add_route("*", "/{tail:.*}", self._not_found)
        # handler_cancellation: a client that disconnects cancels its handler, so hangs end at once.
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0, handler_cancellation=True)
        try:
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", 0).start()
            self._port = runner.addresses[0][1]
        except BaseException as exc:
            self._startup_error = exc
            ready.set()
            await runner.cleanup()
            return
        ready.set()
        try:
            await self._stopping.wait()
        finally:
            # A connection accepted just before the stop gets its transport a few ticks later: let it arrive,
            # so that the cleanup below closes it too rather than leaving it to the collector.
            await asyncio.sleep(0.02)
            await runner.cleanup()

    async def _pause(self, seconds: float | None) -> bool:
        """Sleep ``seconds`` (None: forever); False when cut short because the server is stopping."""
        assert self._stopping is not None
        try:
            await asyncio.wait_for(self._stopping.wait(), seconds)
        except TimeoutError:
            return True
        return False

    async def _read(self, request: web.Request) -> tuple[RecordedRequest, web.Response | None]:
        """Record the request; return it with an early error response (bad auth, bad JSON), if any."""
        received_at = time.perf_counter()
        raw = await request.read()
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_raw": raw.decode(errors="replace")}
            return self._record(request, received_at, body), _failure(error(400, "Request body is not JSON."))
        record = self._record(request, received_at, body if isinstance(body, dict) else {"_json": body})
        if self.require_api_key is not None and \
                request.headers.get("Authorization") != f"Bearer {self.require_api_key}":
            denied = error(401, "Incorrect API key provided.", code="invalid_api_key")
            return record, _failure(denied)
        return record, None

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        record, early = await self._read(request)
        try:
            if early is not None:
                return early
            reply = self._next_reply(record)
            if isinstance(reply, Failure):
                return _failure(reply)
            turn = ChatTurn(reply, record)
            if record.stream and reply.sse:
                return await self._stream(request, turn)
            return await self._complete(request, turn)
        finally:
            record.finished_at = time.perf_counter()
            record.finished.set()

    async def _stream(self, request: web.Request, turn: ChatTurn) -> web.StreamResponse:
        reply = turn.reply
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        frames = reply.shaped_frames(turn) if isinstance(reply, Shaped) else turn.frames()
        try:
            if self.instant and not reply.delay_per_chunk:
                await response.write(b"".join(frames))
                turn.request.first_byte_at = time.perf_counter()
            else:
                for n, frame in enumerate(frames):
                    # The role chunk goes out at once; the delay applies to the content that follows.
                    if n and reply.delay_per_chunk and not await self._pause(reply.delay_per_chunk):
                        return _drop(request, response)
                    await response.write(frame)
                    turn.request.first_byte_at = turn.request.first_byte_at or time.perf_counter()
            if reply.hang:
                await self._pause(None)  # ends by cancellation when the client leaves
                return _drop(request, response)
            await response.write_eof()
        except ConnectionResetError:  # the client went away mid-stream
            pass
        return response

    async def _complete(self, request: web.Request, turn: ChatTurn) -> web.StreamResponse:
        reply = turn.reply
        if reply.hang:
            await self._pause(None)
            return _drop(request, web.Response())
        delay = reply.delay_per_chunk * sum(1 for _ in turn.deltas())
        if delay and not await self._pause(delay):
            return _drop(request, web.Response())
        return web.json_response(turn.completion())

    async def _embeddings(self, request: web.Request) -> web.Response:
        record, early = await self._read(request)
        if early is not None:
            return early
        inputs = embedding_inputs(record.body.get("input", ""))
        dimensions = int(record.body.get("dimensions") or self.embedding_dimensions)
        data = []
        for index, item in enumerate(inputs):
            vector: Any = self.embed_text(item, dimensions)
            if record.body.get("encoding_format") == "base64":
                vector = base64.b64encode(struct.pack(f"<{dimensions}f", *vector)).decode()
            data.append({"object": "embedding", "index": index, "embedding": vector})
        tokens = sum(estimate_tokens(item) for item in inputs)
        return web.json_response({"object": "list", "data": data, "model": record.model or self.models[0],
                                  "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    async def _models(self, request: web.Request) -> web.Response:
        _record, early = await self._read(request)
        if early is not None:
            return early
        listed = [{"id": name, "object": "model", "created": 0, "owned_by": "claw-tests",
                   **model_fields(self.local)} for name in self.models]
        return web.json_response({"object": "list", "data": listed})

    async def _not_found(self, request: web.Request, *, recorded: bool = False) -> web.Response:
        if not recorded:
            await self._read(request)
        return _failure(error(404, f"Unknown request URL: {request.method} {request.path}.",
                              code="unknown_url"))


def _failure(failure: Failure) -> web.Response:
    return web.json_response(failure.body(), status=failure.status, headers=dict(failure.headers))


def _drop(request: web.Request, response: web.StreamResponse) -> web.StreamResponse:
    """Cut the connection without finishing the reply, as a dying upstream would."""
    if request.transport is not None:
        request.transport.abort()
    return response
