"""`POST /v1/responses`: OpenAI's Responses API (OpenResponses, as OpenClaw's gateway offers it) over one
agent turn, beside chat completions (`claw.server.http_api`), for clients that speak only this API.

The request's user text runs as a turn of the agent named by `model`; the session is the
`X-Claw-Session` header's, else that of `previous_response_id` (the conversation goes on), else one per
`user`, else a fresh one, and the response's `X-Claw-Session` header names it. Not streamed, the answer is
the `response` object once the turn ended; streamed, the documented events follow the run's assistant
deltas. A client that leaves mid-stream does not stop the turn. A slash command is answered by the
gateway and comes back as the response's text.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, cast

from aiohttp import web

from claw.client.local import LocalClient
from claw.errors import ClawError
from claw.gateway.event_bus import SubscriberOverflow
from claw.gateway.run_event import RunEvent, Stream
from claw.server.openai_wire import WireError, agent_for_model
from claw.server.responses_wire import (
    RESPONSE_PREFIX,
    EventStream,
    ResponsesRequest,
    input_text,
    message_item,
    output_text,
    parse_responses_request,
    response,
)

if TYPE_CHECKING:
    from claw.gateway.gateway import Gateway

SESSION_HEADER = "X-Claw-Session"
_NO_RETRY = {"x-should-retry": "false"}  # the turn already ran; the openai client must not repeat it

ReadJson = Callable[[web.Request], Awaitable[Any]]
SessionFor = Callable[[web.Request, "str | None", str], str]
"""The session key of a request (`HttpApi.session_key`: the header's, or one per user, or a fresh one)."""


class ResponsesApi:
    """The handler of `POST /v1/responses`; shares the body reader and the session rule of `HttpApi`."""

    def __init__(self, gateway: Gateway, read_json: ReadJson, session_for: SessionFor) -> None:
        self._gw = gateway
        self._read_json = read_json
        self._session_for = session_for

    async def create(self, request: web.Request) -> web.StreamResponse:
        try:
            body = parse_responses_request(await self._read_json(request))
            agent_id = agent_for_model(body.model, self._gw.config.agent_ids)
            params: dict[str, Any] = {
                "message": input_text(body),
                "agentId": agent_id,
                "sessionKey": self._session(request, body, agent_id),
            }
            if key := request.headers.get("Idempotency-Key"):
                params["idempotencyKey"] = f"http:{key}"
            result = await self._gw.call_method("agent", params, channel="http")
        except WireError as exc:
            return web.json_response(exc.body, status=exc.status)
        except ClawError as exc:
            return web.json_response(WireError(400, exc.message).body, status=400)
        run_id = result.get("runId")
        headers = {SESSION_HEADER: result["sessionKey"], **({"X-Claw-Run-Id": run_id} if run_id else {})}
        ident, created = RESPONSE_PREFIX + (run_id or uuid.uuid4().hex), int(time.time())
        if run_id is None:
            if result["status"] == "dropped":
                failure = WireError(429, result.get("reply") or "queue full", type="rate_limit_error")
                return web.json_response(failure.body, status=429, headers={**headers, **_NO_RETRY})
            reply = result.get("reply") or ""  # a slash command's answer
            if body.stream:
                return await self._stream(request, headers, ident, created, body, None, reply)
            return web.json_response(self._done(ident, created, body.model, reply, {}), headers=headers)
        if body.stream:
            return await self._stream(request, headers, ident, created, body, run_id, None)
        run = self._gw.runs.get(run_id)
        outcome = await run.wait() if run is not None else None
        if outcome is None or outcome.status != "ok":
            reason = outcome.error if outcome is not None else "the run is gone"
            failure = WireError(502, f"the run failed: {reason}", type="server_error", code="run_failed")
            return web.json_response(failure.body, status=502, headers={**headers, **_NO_RETRY})
        return web.json_response(self._done(ident, created, body.model, outcome.text, outcome.usage), headers=headers)

    def _session(self, request: web.Request, body: ResponsesRequest, agent_id: str) -> str:
        """`previous_response_id` continues that response's session (when no header names one)."""
        if body.previous_response_id and not request.headers.get(SESSION_HEADER):
            run = self._gw.runs.get(body.previous_response_id.removeprefix(RESPONSE_PREFIX))
            if run is None or run.agent_id != agent_id:
                message = f"previous response {body.previous_response_id!r} not found (or not of {body.model})"
                raise WireError(400, message, param="previous_response_id", code="previous_response_not_found")
            return run.session_key
        return self._session_for(request, body.user, agent_id)

    @staticmethod
    def _done(ident: str, created: int, model: str, text: str, usage: dict[str, int]) -> dict[str, Any]:
        item = message_item("msg_" + ident.removeprefix(RESPONSE_PREFIX), text)
        return response(ident, created, model, status="completed", output=[item], usage=usage)

    async def _stream(
        self,
        request: web.Request,
        headers: dict[str, str],
        ident: str,
        created: int,
        body: ResponsesRequest,
        run_id: str | None,
        reply: str | None,
    ) -> web.StreamResponse:
        """The event sequence of one message item: the run's deltas (or a command's reply, all at once)."""
        out = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache", **headers})
        await out.prepare(request)
        events, model = EventStream(), body.model
        item_id = "msg_" + ident.removeprefix(RESPONSE_PREFIX)
        place = {"item_id": item_id, "output_index": 0, "content_index": 0}
        started = response(ident, created, model, status="in_progress", output=[])
        parts: list[str] = []
        try:
            await out.write(events.event("response.created", response=started))
            await out.write(events.event("response.in_progress", response=started))
            item = message_item(item_id, None, "in_progress")
            await out.write(events.event("response.output_item.added", output_index=0, item=item))
            await out.write(events.event("response.content_part.added", **place, part=output_text("")))
            usage: dict[str, int] = {}
            if run_id is None:
                parts.append(reply or "")
                await out.write(events.event("response.output_text.delta", **place, delta=reply or "", logprobs=[]))
            else:
                failure = await self._relay(out, events, place, run_id, parts)
                if failure is not None:
                    error = {"code": "server_error", "message": f"the run failed: {failure}"}
                    failed = response(ident, created, model, status="failed", output=[], error=error)
                    await out.write(events.event("response.failed", response=failed))
                    return out
                run = self._gw.runs.get(run_id)
                outcome = await run.wait() if run is not None else None
                usage = outcome.usage if outcome is not None else {}
            text = "".join(parts)
            await out.write(events.event("response.output_text.done", **place, text=text, logprobs=[]))
            await out.write(events.event("response.content_part.done", **place, part=output_text(text)))
            finished = message_item(item_id, text)
            await out.write(events.event("response.output_item.done", output_index=0, item=finished))
            done = response(ident, created, model, status="completed", output=[finished], usage=usage)
            await out.write(events.event("response.completed", response=done))
        except ConnectionError:
            pass  # the client left; the run goes on and is recorded
        return out

    async def _relay(
        self, out: web.StreamResponse, events: EventStream, place: dict[str, Any], run_id: str, parts: list[str]
    ) -> str | None:
        """Write the run's assistant deltas; why it failed, or None once it ended well."""
        stream = cast(AsyncGenerator[RunEvent, None], LocalClient(self._gw, owns_gateway=False).events(run_id))
        try:
            async with contextlib.aclosing(stream):
                async for event in stream:
                    delta = event.data.get("delta") if event.stream == Stream.ASSISTANT else None
                    if delta:
                        parts.append(delta)
                        await out.write(events.event("response.output_text.delta", **place, delta=delta, logprobs=[]))
        except SubscriberOverflow:
            return "client too slow: events dropped"
        except ClawError as exc:
            return exc.message
        run = self._gw.runs.get(run_id)
        outcome = await run.wait() if run is not None else None
        if outcome is None:
            return "the run is gone"
        return None if outcome.status == "ok" else (outcome.error or outcome.status)
