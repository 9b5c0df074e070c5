"""HTTP on the gateway's port: `GET /health`, and an OpenAI-compatible `/v1` (models, chat completions,
responses).

`POST /v1/chat/completions` runs the last user message as one turn of the agent named
by `model` (`claw/<agentId>`); earlier messages in the request are not replayed, the
agent has its own transcript. The session is, in order: the `X-Claw-Session` header,
a stable per-`user` session (`agent:<id>:http:direct:<user>`), or a fresh one per call;
the response's `X-Claw-Session` header names it so a caller can continue it.
A client that disconnects mid-stream does not stop the turn: it completes and is recorded.
`POST /v1/responses` does the same for the Responses API (claw/server/responses_wire.py); there a
`previous_response_id` this gateway process answered continues that response's session.
Auth (Bearer) and the Origin check happen in the server's middleware.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any, cast

from aiohttp import web

from claw.errors import ClawError
from claw.gateway.run_follow import run_events
from claw.server.openai_wire import (
    AGENT_MODEL_PREFIX,
    DONE,
    ChatRequest,
    WireError,
    agent_for_model,
    chunk,
    completion,
    last_user_text,
    parse_chat_request,
    sse,
    usage_chunk,
)
from claw.server.responses_wire import (
    EventWriter,
    ResponsesRequest,
    input_text,
    message_item,
    output_text,
    parse_responses_request,
    response_object,
)
from claw.strict_json import JsonError, loads_strict
from claw.vocab.run_event import RunEvent, Stream
from claw.vocab.session_keys import InvalidSessionKey, agent_of, key_segment, normalize_session_key
from claw.vocab.subscription import SubscriberOverflow

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway
    from claw.gateway.runs import RunOutcome

SESSION_HEADER = "X-Claw-Session"
_NO_RETRY = {"x-should-retry": "false"}  # the turn already ran; the openai client must not repeat it
_RESERVED_SCOPES = ("cron", "subagent")
_REMEMBERED_RESPONSES = 4096  # response id → session, for `previous_response_id`


def error_response(exc: WireError, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(exc.body, status=exc.status, headers=headers)


class HttpApi:
    """The handlers; `add_routes` mounts them."""

    def __init__(self, gateway: Gateway, max_body_bytes: int) -> None:
        self._gw = gateway
        self._max_body = max_body_bytes
        self._response_sessions: OrderedDict[str, str] = OrderedDict()

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get("/health", self.health)
        router.add_get("/v1/models", self.models)
        router.add_get("/v1/models/{model_id:.+}", self.model)
        router.add_post("/v1/chat/completions", self.chat_completions)
        router.add_post("/v1/responses", self.responses)

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    def _model_row(self, agent_id: str) -> dict[str, Any]:
        return {
            "id": AGENT_MODEL_PREFIX + agent_id,
            "object": "model",
            "created": int(self._gw.started_at),
            "owned_by": "claw",
        }

    async def models(self, request: web.Request) -> web.Response:
        rows = [self._model_row(a) for a in self._gw.config.agent_ids]
        return web.json_response({"object": "list", "data": rows})

    async def model(self, request: web.Request) -> web.Response:
        try:
            agent_id = agent_for_model(request.match_info["model_id"], self._gw.config.agent_ids)
        except WireError as exc:
            return error_response(exc)
        return web.json_response(self._model_row(agent_id))

    async def chat_completions(self, request: web.Request) -> web.StreamResponse:
        try:
            chat = parse_chat_request(await self._read_json(request))
            agent_id = agent_for_model(chat.model, self._gw.config.agent_ids)
            session_key = self._session_key(request, chat.user, agent_id)
            result = await self._start(request, last_user_text(chat), agent_id, session_key)
        except WireError as exc:
            return error_response(exc)
        except ClawError as exc:
            return error_response(WireError(400, exc.message))
        run_id = result.get("runId")
        headers = _headers(result)
        ident, created = f"chatcmpl-{run_id or uuid.uuid4().hex}", int(time.time())
        if run_id is None:
            if result["status"] == "dropped":
                return _dropped(result, headers)
            reply = result.get("reply") or ""  # a slash command's answer
            if chat.stream:
                return await self._stream_text(request, headers, ident, created, chat, reply)
            return web.json_response(completion(ident, created, chat.model, reply, {}), headers=headers)
        if chat.stream:
            return await self._stream_run(request, headers, ident, created, chat, run_id)
        outcome = await self._outcome(run_id)
        if outcome.status != "ok":
            failure = WireError(502, f"the run failed: {outcome.error}", type="server_error", code="run_failed")
            return error_response(failure, {**headers, **_NO_RETRY})
        body = completion(ident, created, chat.model, outcome.text, outcome.usage)
        return web.json_response(body, headers=headers)

    async def _start(self, request: web.Request, message: str, agent_id: str, session_key: str) -> dict[str, Any]:
        """The `agent` call both APIs make: one turn of `agent_id` in `session_key` (an `Idempotency-Key`
        header makes a retried request the same run)."""
        params: dict[str, Any] = {"message": message, "agentId": agent_id, "sessionKey": session_key}
        if key := request.headers.get("Idempotency-Key"):
            params["idempotencyKey"] = f"http:{key}"
        return await self._gw.call_method("agent", params, channel="http")

    async def _read_json(self, request: web.Request) -> Any:
        too_big = WireError(413, f"request body too large (limit {self._max_body} bytes)")
        if request.content_length is not None and request.content_length > self._max_body:
            raise too_big
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            raise too_big from None
        try:
            return loads_strict(raw)
        except JsonError as exc:
            raise WireError(400, f"invalid JSON body: {exc}") from None

    async def responses(self, request: web.Request) -> web.StreamResponse:
        try:
            asked = parse_responses_request(await self._read_json(request))
            agent_id = agent_for_model(asked.model, self._gw.config.agent_ids)
            session_key = self._responses_session(request, asked, agent_id)
            result = await self._start(request, input_text(asked), agent_id, session_key)
        except WireError as exc:
            return error_response(exc)
        except ClawError as exc:
            return error_response(WireError(400, exc.message))
        run_id = result.get("runId")
        headers = _headers(result)
        ident, created = f"resp_{run_id or uuid.uuid4().hex}", int(time.time())
        self._remember(ident, result["sessionKey"])
        if run_id is None:
            if result["status"] == "dropped":
                return _dropped(result, headers)
            text = result.get("reply") or ""  # a slash command's answer
            body = response_object(ident, created, asked.model, status="completed", usage={},
                                   output=[message_item(f"msg_{ident[5:]}", text)],
                                   previous_response_id=asked.previous_response_id)  # fmt: skip
            return web.json_response(body, headers=headers)
        if asked.stream:
            return await self._stream_response(request, headers, ident, created, asked, run_id)
        outcome = await self._outcome(run_id)
        if outcome.status != "ok":
            failure = WireError(502, f"the run failed: {outcome.error}", type="server_error", code="run_failed")
            return error_response(failure, {**headers, **_NO_RETRY})
        body = response_object(ident, created, asked.model, status="completed", usage=outcome.usage,
                               output=[message_item(f"msg_{run_id}", outcome.text)],
                               previous_response_id=asked.previous_response_id)  # fmt: skip
        return web.json_response(body, headers=headers)

    def _responses_session(self, request: web.Request, asked: ResponsesRequest, agent_id: str) -> str:
        """`previous_response_id`'s session when given (it must be one this process answered, for this agent),
        else as for chat completions: the header, the `user`, or a fresh session."""
        if asked.previous_response_id is None:
            return self._session_key(request, asked.user, agent_id)
        key = self._response_sessions.get(asked.previous_response_id)
        if key is None:
            raise WireError(
                400,
                f"Previous response with id {asked.previous_response_id!r} not found (claw remembers the "
                f"responses of the running gateway only; send the {SESSION_HEADER} header to continue a session)",
                param="previous_response_id",
                code="previous_response_not_found",
            )
        if agent_of(key) != agent_id:
            owner = agent_of(key)
            raise WireError(400, f"response {asked.previous_response_id} belongs to agent {owner}", param="model")
        return key

    def _remember(self, response_id: str, session_key: str) -> None:
        self._response_sessions[response_id] = session_key
        while len(self._response_sessions) > _REMEMBERED_RESPONSES:
            self._response_sessions.popitem(last=False)

    async def _stream_response(
        self,
        request: web.Request,
        headers: dict[str, str],
        ident: str,
        created: int,
        asked: ResponsesRequest,
        run_id: str,
    ) -> web.StreamResponse:
        item_id, out = f"msg_{run_id}", EventWriter()
        place = {"item_id": item_id, "output_index": 0, "content_index": 0}

        def whole(status: Any, output: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
            return response_object(ident, created, asked.model, status=status, output=output,
                                   previous_response_id=asked.previous_response_id, **extra)  # fmt: skip

        response = await self._open_stream(request, headers)
        try:
            await response.write(out.event("response.created", response=whole("in_progress", [])))
            await response.write(out.event("response.in_progress", response=whole("in_progress", [])))
            item = message_item(item_id, None, "in_progress")
            await response.write(out.event("response.output_item.added", output_index=0, item=item))
            await response.write(out.event("response.content_part.added", **place, part=output_text("")))
            parts: list[str] = []
            events = cast(AsyncGenerator[RunEvent, None], run_events(self._gw, run_id))
            async with contextlib.aclosing(events):
                async for event in events:
                    if event.stream == Stream.ASSISTANT and event.data.get("delta"):
                        parts.append(event.data["delta"])
                        await response.write(
                            out.event("response.output_text.delta", **place, delta=event.data["delta"], logprobs=[])
                        )
            outcome = await self._outcome(run_id)
            text = outcome.text if outcome.status == "ok" else "".join(parts)
            await response.write(out.event("response.output_text.done", **place, text=text, logprobs=[]))
            await response.write(out.event("response.content_part.done", **place, part=output_text(text)))
            done = message_item(item_id, text, "completed" if outcome.status == "ok" else "incomplete")
            await response.write(out.event("response.output_item.done", output_index=0, item=done))
            if outcome.status == "ok":
                finished = whole("completed", [done], usage=outcome.usage)
                await response.write(out.event("response.completed", response=finished))
            else:
                error = {"code": "server_error", "message": f"the run failed: {outcome.error or outcome.status}"}
                await response.write(out.event("response.failed", response=whole("failed", [done], error=error)))
        except SubscriberOverflow:
            error = {"code": "server_error", "message": "client too slow: events dropped"}
            await response.write(out.event("response.failed", response=whole("failed", [], error=error)))
        except (ConnectionError, WireError):
            pass  # the client left (the run goes on and is recorded), or the run vanished
        return response

    def _session_key(self, request: web.Request, user: str | None, agent_id: str) -> str:
        """The header's key (checked: a 400 names what is wrong), else one per `user` (made into a valid
        key segment, whatever it holds), else a fresh one."""
        header = request.headers.get(SESSION_HEADER)
        if header:
            try:
                key = normalize_session_key(header, agent_id)
            except InvalidSessionKey as exc:
                raise WireError(400, f"invalid {SESSION_HEADER} header: {exc.detail}", code="invalid_session") from None
            if agent_of(key) != agent_id:
                raise WireError(400, f"session {key} belongs to agent {agent_of(key)}, not {agent_id}", param="model")
            if key.split(":")[2] in _RESERVED_SCOPES:
                raise WireError(400, f"session {key} is reserved for automations and subagents")
            return key
        if user:
            return f"agent:{agent_id}:http:direct:{key_segment(user, empty='user')}"
        return f"agent:{agent_id}:http:{uuid.uuid4().hex[:16]}"

    async def _outcome(self, run_id: str) -> RunOutcome:
        run = self._gw.runs.get(run_id)
        outcome = await run.wait() if run is not None else None
        if outcome is None:
            raise WireError(500, f"run {run_id} is gone", type="server_error")
        return outcome

    async def _open_stream(self, request: web.Request, headers: dict[str, str]) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **headers}
        )
        await response.prepare(request)
        return response

    async def _stream_text(
        self, request: web.Request, headers: dict[str, str], ident: str, created: int, chat: ChatRequest, text: str
    ) -> web.StreamResponse:
        response = await self._open_stream(request, headers)
        await response.write(chunk(ident, created, chat.model, {"role": "assistant", "content": text}))
        await self._finish(response, ident, created, chat, {})
        return response

    async def _stream_run(
        self, request: web.Request, headers: dict[str, str], ident: str, created: int, chat: ChatRequest, run_id: str
    ) -> web.StreamResponse:
        response = await self._open_stream(request, headers)
        try:
            await response.write(chunk(ident, created, chat.model, {"role": "assistant", "content": ""}))
            events = cast(AsyncGenerator[RunEvent, None], run_events(self._gw, run_id))
            async with contextlib.aclosing(events):
                async for event in events:
                    if event.stream == Stream.ASSISTANT and event.data.get("delta"):
                        await response.write(chunk(ident, created, chat.model, {"content": event.data["delta"]}))
            outcome = await self._outcome(run_id)
            if outcome.status == "ok":
                await self._finish(response, ident, created, chat, outcome.usage)
            else:
                reason = outcome.error or outcome.status
                await response.write(
                    sse(
                        {
                            "error": {
                                "message": f"the run failed: {reason}",
                                "type": "server_error",
                                "param": None,
                                "code": "run_failed",
                            }
                        }
                    )
                )
        except SubscriberOverflow:
            await response.write(
                sse(
                    {
                        "error": {
                            "message": "client too slow: events dropped",
                            "type": "server_error",
                            "param": None,
                            "code": "overflow",
                        }
                    }
                )
            )
        except (ConnectionError, WireError):
            pass  # the client left (the run goes on and is recorded), or the run vanished
        return response

    async def _finish(
        self, response: web.StreamResponse, ident: str, created: int, chat: ChatRequest, usage: dict[str, int]
    ) -> None:
        await response.write(chunk(ident, created, chat.model, {}, "stop"))
        if chat.stream_options is not None and chat.stream_options.include_usage:
            await response.write(usage_chunk(ident, created, chat.model, usage))
        await response.write(DONE)


def _headers(result: dict[str, Any]) -> dict[str, str]:
    """The session the turn ran in, and its run, for a caller that continues it."""
    run_id = result.get("runId")
    return {SESSION_HEADER: result["sessionKey"], **({"X-Claw-Run-Id": run_id} if run_id else {})}


def _dropped(result: dict[str, Any], headers: dict[str, str]) -> web.Response:
    """The session's queue was full and its policy dropped the message: a 429 the openai client does not retry."""
    failure = WireError(429, result.get("reply") or "queue full", type="rate_limit_error")
    return error_response(failure, {**headers, **_NO_RETRY})
