"""The OpenAI Responses wire format, for `POST /v1/responses` (what newer OpenAI clients speak only).

As with chat completions, the request is one turn of the agent named by `model`: its last user input
is the message, and the agent keeps its own transcript (earlier input items and `instructions` are not
replayed). Requests are validated with pydantic (OpenAI's other fields are accepted and ignored); the
reply is a `response` object whose `output` holds one assistant `message` with one `output_text` part,
or, streamed, the event sequence the official client reads: `response.created`, `.in_progress`,
`.output_item.added`, `.content_part.added`, `.output_text.delta`…, `.output_text.done`,
`.content_part.done`, `.output_item.done`, then `response.completed` (or `response.failed`), each
with its `sequence_number`.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from claw.server.openai_wire import WireError


class InputMessage(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    type: Literal["message"] = "message"
    role: Literal["user", "assistant", "system", "developer"]
    content: str | list[dict[str, Any]]


class ResponsesRequest(BaseModel):
    """The fields claw uses; tools, temperature and the rest are the agent's to decide."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    model: str = Field(min_length=1, max_length=200)
    input: str | list[dict[str, Any]]
    instructions: str | None = None
    stream: StrictBool = False
    user: str | None = Field(default=None, max_length=256)
    previous_response_id: str | None = Field(default=None, max_length=200)
    max_output_tokens: int | None = Field(default=None, ge=1)


def parse_responses_request(raw: Any) -> ResponsesRequest:
    if not isinstance(raw, dict):
        raise WireError(400, "the request body must be a JSON object")
    try:
        return ResponsesRequest.model_validate(raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        param = ".".join(str(p) for p in err["loc"])
        raise WireError(400, f"invalid {param}: {err['msg']}", param=param) from None


def input_text(request: ResponsesRequest) -> str:
    """The last user input's text: the whole `input` when it is a string, else the last item with the user's
    role (its `input_text` parts joined). Items of other types (function call outputs …) are passed over."""
    if isinstance(request.input, str):
        if request.input.strip():
            return request.input
        raise WireError(400, "input is empty; claw runs it as a turn of the agent", param="input")
    for index in range(len(request.input) - 1, -1, -1):
        item = request.input[index]
        if item.get("type", "message") != "message" or item.get("role") != "user":
            continue
        try:
            message = InputMessage.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in ("input", index, *err["loc"]))
            raise WireError(400, f"invalid {where}: {err['msg']}", param=where) from None
        content = message.content
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if p.get("type") in ("input_text", "text"))
        if content.strip():
            return content
        break
    raise WireError(400, "the last user input has no text; claw runs it as a turn of the agent", param="input")


def _usage(usage: dict[str, int]) -> dict[str, Any]:
    """A run's token totals (`input`, `output`); the details OpenAI's type requires are not kept per run."""
    given, produced = usage.get("input", 0), usage.get("output", 0)
    return {
        "input_tokens": given,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": produced,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": given + produced,
    }


def message_item(item_id: str, text: str | None, status: str = "completed") -> dict[str, Any]:
    """The assistant's message; `text` None: not begun (no content part yet)."""
    content = [] if text is None else [output_text(text)]
    return {"type": "message", "id": item_id, "status": status, "role": "assistant", "content": content}


def output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def response_object(
    response_id: str,
    created: int,
    model: str,
    *,
    status: Literal["in_progress", "completed", "failed"],
    output: list[dict[str, Any]],
    usage: dict[str, int] | None = None,
    error: dict[str, str] | None = None,
    previous_response_id: str | None = None,
) -> dict[str, Any]:
    return {
        "id": response_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "model": model,
        "output": output,
        "error": error,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "parallel_tool_calls": False,
        "previous_response_id": previous_response_id,
        "temperature": None,
        "top_p": None,
        "tool_choice": "none",
        "tools": [],
        "usage": None if usage is None else _usage(usage),
    }


class EventWriter:
    """Numbers the stream's events (`sequence_number`) and frames each as a server-sent event."""

    def __init__(self) -> None:
        self._next = 0

    def event(self, kind: str, **fields: Any) -> bytes:
        body = {"type": kind, "sequence_number": self._next, **fields}
        self._next += 1
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        return f"event: {kind}\ndata: {data}\n\n".encode()
